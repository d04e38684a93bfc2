package goindex

import (
	"fmt"
	"strings"
)

// Kind is the kind of a declaration.
type Kind uint8

// The kinds of declarations the index holds. A type declaration has one of
// the four type kinds: struct, interface, alias (type A = B), or type (any
// other defined type). A query's kind "type" selects all four.
const (
	KindPackage         Kind = iota + 1
	KindFunc                 // a function without a receiver
	KindMethod               // a method declared with a receiver
	KindStruct               // a defined struct type
	KindInterface            // a defined interface type
	KindAlias                // an alias declaration
	KindType                 // any other defined type
	KindField                // a struct field, embedded ones included
	KindInterfaceMethod      // a method in an interface type
	KindConst                // one name of a const declaration
	KindVar                  // one name of a var declaration
	numKinds
)

var kindNames = [numKinds]string{
	KindPackage:         "package",
	KindFunc:            "func",
	KindMethod:          "method",
	KindStruct:          "struct",
	KindInterface:       "interface",
	KindAlias:           "alias",
	KindType:            "type",
	KindField:           "field",
	KindInterfaceMethod: "interface_method",
	KindConst:           "const",
	KindVar:             "var",
}

// KindNames lists the kind names a [Query] accepts, in a stable order.
func KindNames() []string { return append([]string(nil), kindNames[1:]...) }

func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// MarshalText encodes k as its name, so that kinds read as words in JSON.
func (k Kind) MarshalText() ([]byte, error) {
	if k == 0 || k >= numKinds {
		return nil, fmt.Errorf("goindex: invalid kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// kindSet is a set of kinds, as a bit mask.
type kindSet uint16

func (s kindSet) has(k Kind) bool { return s == 0 || s&(1<<k) != 0 }

// parseKinds converts kind names to a set; "type" names every type kind.
// The empty list is the set of all kinds.
func parseKinds(names []string) (kindSet, error) {
	var s kindSet
	for _, n := range names {
		k := lookupKind(strings.ToLower(strings.TrimSpace(n)))
		if k == 0 {
			return 0, fmt.Errorf("unknown kind %q (known: %s)", truncate(n, 40), strings.Join(KindNames(), ", "))
		}
		s |= 1 << k
		if k == KindType {
			s |= 1<<KindStruct | 1<<KindInterface | 1<<KindAlias
		}
	}
	return s, nil
}

func lookupKind(name string) Kind {
	for k, n := range kindNames {
		if n != "" && n == name {
			return Kind(k)
		}
	}
	return 0
}
