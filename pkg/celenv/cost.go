package celenv

import (
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// kube's limits on what CEL may cost (k8s.io/apiserver/pkg/apis/cel and
// the CustomResourceDefinition validation), in cel-go's cost units: about
// a tenth of a second of CPU per million.
const (
	// RuntimeCostBudget bounds all the evaluations made for one object (a
	// custom resource's rules) or one policy binding, kube's
	// RuntimeCELCostBudget: about a second.
	RuntimeCostBudget = 10000000
	// StaticEstimatedCostLimit bounds the estimated cost of one expression,
	// times the number of values it can run on.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit bounds the estimated costs of all the
	// rules of one CustomResourceDefinition's schema, added up.
	StaticEstimatedCRDCostLimit = 100000000
	// MaxRequestSizeBytes is the largest request, and so the largest value
	// an expression can be given: it bounds the sizes of strings, lists and
	// maps a schema leaves unbounded.
	MaxRequestSizeBytes = 3 << 20
	// checkFrequency is how many comprehension steps run between checks
	// that the evaluation's context is done.
	checkFrequency = 100
)

// Sizes gives the largest size a value reached by path may have: its
// length, its number of items or its number of entries. path[0] is a
// variable, the rest field names or "@items", "@keys", "@values",
// "@indices" for what a comprehension ranges over. Sizes reports false
// when it knows no bound.
type Sizes func(path []string) (uint64, bool)

// estimator prices expressions before they run: sizes from the caller,
// and the library functions that cel-go does not know the price of.
type estimator struct{ sizes Sizes }

var _ checker.CostEstimator = estimator{}

func (e estimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if e.sizes == nil || len(n.Path()) == 0 {
		return nil
	}
	if max, ok := e.sizes(n.Path()); ok {
		return &checker.SizeEstimate{Min: 0, Max: max}
	}
	return nil
}

func (e estimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	size := func(n checker.AstNode) checker.SizeEstimate {
		if s := n.ComputedSize(); s != nil {
			return *s
		}
		if s := e.EstimateSize(n); s != nil {
			return *s
		}
		return checker.UnknownSizeEstimate()
	}
	switch overloadID {
	case overloads.IntToString, overloads.UintToString, overloads.DoubleToString, overloads.BoolToString,
		overloads.TimestampToString, overloads.DurationToString:
		// cel-go knows no size for a scalar as text, and would price
		// 'count: ' + string(self.size()) as if the text could fill memory.
		return &checker.CallEstimate{CostEstimate: checker.FixedCostEstimate(1),
			ResultSize: &checker.SizeEstimate{Min: 1, Max: maxScalarText}}
	}
	switch function {
	case "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf":
		if target != nil {
			// One step per element, or per ten characters of a string.
			factor := 1.0
			if (*target).Type().Kind() == types.StringKind {
				factor = stringFactor
			}
			return &checker.CallEstimate{CostEstimate: size(*target).MultiplyByCostFactor(factor)}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := size(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringFactor), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			sz, old, with := size(*target), size(args[0]), size(args[1])
			// At worst every character is replaced by the longest
			// replacement (every gap, for an empty string to replace).
			result := checker.SizeEstimate{Min: 0, Max: saturatingAdd(sz.Max, saturatingMul(sz.Max+1, with.Max))}
			if old.Min > 0 && with.Max <= old.Min {
				result.Max = sz.Max
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * stringFactor), ResultSize: &result}
		}
	case "split":
		if target != nil {
			sz := size(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * stringFactor),
				ResultSize: &checker.SizeEstimate{Min: 0, Max: saturatingAdd(sz.Max, 1)}}
		}
	case "join":
		if target != nil {
			// A list of strings: at most its size times the longest
			// item, plus the separators.
			items := checker.UnknownSizeEstimate()
			if path := (*target).Path(); len(path) > 0 && e.sizes != nil {
				if max, ok := e.sizes(append(append([]string{}, path...), "@items")); ok {
					items = checker.SizeEstimate{Min: 0, Max: max}
				}
			}
			n := size(*target)
			result := n.Multiply(items)
			if len(args) > 0 {
				result = result.Add(n.Multiply(size(args[0])))
			}
			return &checker.CallEstimate{CostEstimate: result.MultiplyByCostFactor(2 * stringFactor), ResultSize: &result}
		}
	case "find", "findAll":
		if target != nil && len(args) > 0 {
			s, re := size(*target), size(args[0])
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{
				Min: regexCost(s.Min, re.Min), Max: regexCost(s.Max, re.Max)}}
		}
	}
	return nil
}

// maxScalarText bounds the text of a scalar: the longest is a timestamp
// with nanoseconds and a zone, or a float's shortest exact form.
const maxScalarText = 40

// actualCost prices the library functions as they run, so that calling
// them in a loop uses the budget their work deserves: cel-go counts any
// function it does not know as 1.
type actualCost struct{}

func (actualCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	var cost uint64
	switch function {
	case "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf":
		if len(args) > 0 {
			cost = traversalCost(args[0])
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if len(args) > 0 {
			cost = scaled(stringSize(args[0]), stringFactor)
		}
	case "replace", "split":
		if len(args) > 0 {
			cost = scaled(stringSize(args[0]), 2*stringFactor)
		}
	case "join":
		cost = scaled(stringSize(result), 2*stringFactor)
	case "find", "findAll":
		if len(args) > 1 {
			cost = regexCost(stringSize(args[0]), stringSize(args[1]))
		}
	default:
		return nil
	}
	return &cost
}

// stringFactor is cel-go's and kube's price of reading one character.
const stringFactor = 0.1

// traversalCost is kube's price of reading a value whole: a unit per
// scalar, a tenth per character.
func traversalCost(v ref.Val) uint64 {
	switch t := v.(type) {
	case types.String:
		return uint64(float64(len(t)) * stringFactor)
	case types.Bytes:
		return uint64(float64(len(t)) * stringFactor)
	case traits.Lister:
		var cost uint64
		for it := t.Iterator(); it.HasNext() == types.True; {
			cost = saturatingAdd(cost, traversalCost(it.Next()))
		}
		return cost
	case traits.Mapper:
		var cost uint64
		for it := t.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			cost = saturatingAdd(cost, saturatingAdd(traversalCost(k), traversalCost(t.Get(k))))
		}
		return cost
	}
	return 1
}

func scaled(n uint64, factor float64) uint64 {
	return uint64(math.Ceil(float64(n) * factor))
}

func saturatingAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func saturatingMul(a, b uint64) uint64 { return MultiplyCost(a, b) }

func stringSize(v ref.Val) uint64 {
	if s, ok := v.(types.String); ok {
		return uint64(len(s))
	}
	return 0
}

// regexCost is kube's price of matching a regular expression of reSize
// characters against a string of size: a tenth of a unit per character,
// times a quarter per character of the expression.
func regexCost(size, reSize uint64) uint64 {
	str := math.Ceil((1 + float64(size)) * 0.1)
	re := math.Ceil(float64(reSize) * 0.25)
	if c := str * re; c < math.MaxUint64 {
		return uint64(c)
	}
	return math.MaxUint64
}

// CostExceedsMessage is kube's message for an estimated cost over its
// limit: "estimated rule cost exceeds budget by factor of 2.5x (try
// simplifying the rule, ...)".
func CostExceedsMessage(what string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var f string
	switch {
	case factor > 100:
		f = "more than 100x"
	case factor < 1.5:
		f = fmt.Sprintf("%fx", factor)
	default:
		f = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, f)
}

// MultiplyCost is cost times n, saturating instead of overflowing.
func MultiplyCost(cost, n uint64) uint64 {
	if cost == 0 || n == 0 {
		return 0
	}
	if math.MaxUint64/cost < n {
		return math.MaxUint64
	}
	return cost * n
}

// IsCallCostExceeded reports whether an evaluation stopped at the per-call
// limit, PerCallLimit.
func IsCallCostExceeded(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded")
}
