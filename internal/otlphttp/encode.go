package otlphttp

import (
	"encoding/binary"
	"time"
)

// The OTLP messages are written by hand, field by field, from
// opentelemetry-proto's trace/v1, common/v1 and resource/v1 definitions:
// the protobuf runtime's package init (its registry, and a hash of the
// executable it computes at start) was paid by every repo-mcp process,
// tracing or not. The tests decode what is written here with the
// upstream generated types.

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Field numbers, named after the messages and fields of the OTLP protos.
const (
	requestResourceSpans = 1 // ExportTraceServiceRequest (and TracesData)

	resourceSpansResource   = 1
	resourceSpansScopeSpans = 2

	resourceAttributes = 1

	scopeSpansScope = 1
	scopeSpansSpans = 2

	scopeName    = 1
	scopeVersion = 2

	spanTraceID      = 1
	spanSpanID       = 2
	spanTraceState   = 3
	spanParentSpanID = 4
	spanName         = 5
	spanKind         = 6
	spanStart        = 7
	spanEnd          = 8
	spanAttributes   = 9
	spanStatus       = 15
	spanFlags        = 16

	statusMessage = 2
	statusCode    = 3

	keyValueKey   = 1
	keyValueValue = 2

	anyString = 1
	anyBool   = 2
	anyInt    = 3
)

// Span flags (Span.flags): the W3C trace flags in the low byte, and
// whether the parent is known to be remote, and is.
const (
	flagSampled         = 0x01
	flagHasRemoteParent = 0x100
	flagRemoteParent    = 0x200
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendBytesField(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendString writes a string field, left out when empty as proto3 does.
func appendString(b []byte, field int, v string) []byte {
	if v == "" {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendFixed32(b []byte, field int, v uint32) []byte {
	return binary.LittleEndian.AppendUint32(appendTag(b, field, wireFixed32), v)
}

// appendMessage writes a message field whose body enc appends.
func appendMessage(b []byte, field int, enc func([]byte) []byte) []byte {
	return appendBytesField(b, field, enc(nil))
}

// appendKeyValue writes a KeyValue with its AnyValue.
func appendKeyValue(b []byte, field int, kv KeyValue) []byte {
	return appendMessage(b, field, func(b []byte) []byte {
		b = appendString(b, keyValueKey, kv.Key)
		return appendMessage(b, keyValueValue, func(b []byte) []byte {
			switch kv.Value.kind {
			case kindString:
				// Written even when empty: the oneof's choice is the value's type.
				b = appendTag(b, anyString, wireBytes)
				b = binary.AppendUvarint(b, uint64(len(kv.Value.s)))
				return append(b, kv.Value.s...)
			case kindBool:
				return binary.AppendUvarint(appendTag(b, anyBool, wireVarint), uint64(kv.Value.n))
			case kindInt:
				return binary.AppendUvarint(appendTag(b, anyInt, wireVarint), uint64(kv.Value.n))
			}
			return b
		})
	})
}

// encode returns the ExportTraceServiceRequest of spans, all from one
// resource and one instrumentation scope.
func encode(res Resource, spans []Span) []byte {
	return appendMessage(nil, requestResourceSpans, func(b []byte) []byte {
		b = appendMessage(b, resourceSpansResource, func(b []byte) []byte {
			for _, kv := range res.Attributes {
				b = appendKeyValue(b, resourceAttributes, kv)
			}
			return b
		})
		return appendMessage(b, resourceSpansScopeSpans, func(b []byte) []byte {
			b = appendMessage(b, scopeSpansScope, func(b []byte) []byte {
				b = appendString(b, scopeName, res.Scope)
				return appendString(b, scopeVersion, res.ScopeVersion)
			})
			for i := range spans {
				b = appendMessage(b, scopeSpansSpans, spans[i].append)
			}
			return b
		})
	})
}

// append writes s as an OTLP Span message.
func (s *Span) append(b []byte) []byte {
	b = appendBytesField(b, spanTraceID, s.TraceID[:])
	b = appendBytesField(b, spanSpanID, s.SpanID[:])
	b = appendString(b, spanTraceState, s.TraceState)
	if s.ParentSpanID != ([8]byte{}) {
		b = appendBytesField(b, spanParentSpanID, s.ParentSpanID[:])
	}
	b = appendString(b, spanName, s.Name)
	b = appendVarint(b, spanKind, uint64(s.Kind))
	b = appendFixed64(b, spanStart, unixNano(s.Start))
	b = appendFixed64(b, spanEnd, unixNano(s.End))
	for _, kv := range s.Attributes {
		b = appendKeyValue(b, spanAttributes, kv)
	}
	if s.Status != StatusUnset || s.StatusMessage != "" {
		b = appendMessage(b, spanStatus, func(b []byte) []byte {
			b = appendString(b, statusMessage, s.StatusMessage)
			return appendVarint(b, statusCode, uint64(s.Status))
		})
	}
	flags := uint32(flagSampled)
	if s.ParentSpanID != ([8]byte{}) {
		flags |= flagHasRemoteParent
		if s.RemoteParent {
			flags |= flagRemoteParent
		}
	}
	return appendFixed32(b, spanFlags, flags)
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}
