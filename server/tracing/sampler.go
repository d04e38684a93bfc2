package tracing

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Sampler decides whether a new span is recorded and exported.
type Sampler struct {
	// root decides for a span that starts a trace.
	root func(traceID [16]byte) bool
	// parentBased makes a span with a parent follow the parent's choice.
	parentBased bool
}

// AlwaysOn records every span: the OpenTelemetry SDK's default,
// parentbased_always_on, when the caller's parent does not say otherwise.
func AlwaysOn() Sampler { return Sampler{root: func([16]byte) bool { return true }, parentBased: true} }

// sample decides for a span in trace traceID, whose parent, if hasParent,
// was sampled or not.
func (s Sampler) sample(traceID [16]byte, hasParent, parentSampled bool) bool {
	if s.parentBased && hasParent {
		return parentSampled
	}
	return s.root(traceID)
}

// ratio samples the fraction r of traces by their id, as the OpenTelemetry
// SDK's TraceIDRatioBased does, so that every process of a trace decides
// alike: the id's last 8 bytes, shifted right once, under r times 2^63.
func ratio(r float64) func([16]byte) bool {
	bound := uint64(r * (1 << 63))
	return func(id [16]byte) bool { return binary.BigEndian.Uint64(id[8:])>>1 < bound }
}

// SamplerFromEnv returns the sampler that OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG name, as the OpenTelemetry SDK reads them:
// always_on, always_off, traceidratio, and their parentbased_ forms (the
// default, parentbased_always_on); the ratio defaults to 1.
func SamplerFromEnv(getenv func(string) string) (Sampler, error) {
	name := getenv("OTEL_TRACES_SAMPLER")
	r := 1.0
	if arg := getenv("OTEL_TRACES_SAMPLER_ARG"); arg != "" && (name == "traceidratio" || name == "parentbased_traceidratio") {
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || v < 0 || v > 1 {
			return Sampler{}, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
		}
		r = v
	}
	on := func([16]byte) bool { return true }
	off := func([16]byte) bool { return false }
	switch name {
	case "", "parentbased_always_on":
		return Sampler{root: on, parentBased: true}, nil
	case "parentbased_always_off":
		return Sampler{root: off, parentBased: true}, nil
	case "parentbased_traceidratio":
		return Sampler{root: ratio(r), parentBased: true}, nil
	case "always_on":
		return Sampler{root: on}, nil
	case "always_off":
		return Sampler{root: off}, nil
	case "traceidratio":
		return Sampler{root: ratio(r)}, nil
	}
	return Sampler{}, fmt.Errorf("OTEL_TRACES_SAMPLER=%q: want always_on, always_off, traceidratio or parentbased_ one of those", name)
}
