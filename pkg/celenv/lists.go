package celenv

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listsLibrary is kube's list functions that cel-go's extensions lack:
// l.isSorted(), l.sum(), l.min(), l.max(), l.indexOf(x), l.lastIndexOf(x).
// Each is declared once over list(T): the elements' type is settled when
// evaluated, since objects are dynamically typed here.
func listsLibrary() cel.EnvOption {
	return cel.Lib(listsLib{})
}

type listsLib struct{}

func (listsLib) LibraryName() string { return "kubesplit.lists" }

func (listsLib) ProgramOptions() []cel.ProgramOption { return nil }

func (listsLib) CompileOptions() []cel.EnvOption {
	t := cel.TypeParamType("T")
	listT := cel.ListType(t)
	unary := func(name string, out *cel.Type, f func(traits.Lister) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("list_"+name, []*cel.Type{listT}, out,
			cel.UnaryBinding(func(l ref.Val) ref.Val { return f(l.(traits.Lister)) })))
	}
	binary := func(name string, f func(traits.Lister, ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("list_"+name+"_T", []*cel.Type{listT, t}, cel.IntType,
			cel.BinaryBinding(func(l, x ref.Val) ref.Val { return f(l.(traits.Lister), x) })))
	}
	return []cel.EnvOption{
		unary("isSorted", cel.BoolType, isSorted),
		unary("sum", t, sum),
		unary("min", t, func(l traits.Lister) ref.Val { return extreme(l, "min", types.IntNegOne) }),
		unary("max", t, func(l traits.Lister) ref.Val { return extreme(l, "max", types.IntOne) }),
		binary("indexOf", func(l traits.Lister, x ref.Val) ref.Val { return indexOf(l, x, false) }),
		binary("lastIndexOf", func(l traits.Lister, x ref.Val) ref.Val { return indexOf(l, x, true) }),
	}
}

// elements are l's values.
func elements(l traits.Lister) []ref.Val {
	n := int(l.Size().(types.Int))
	out := make([]ref.Val, n)
	for i := range out {
		out[i] = l.Get(types.Int(i))
	}
	return out
}

// compare is a.Compare(b), or an error value when a cannot be ordered.
func compare(a, b ref.Val) ref.Val {
	c, ok := a.(traits.Comparer)
	if !ok {
		return types.NewErr("no such overload: %s is not comparable", a.Type().TypeName())
	}
	return c.Compare(b)
}

func isSorted(l traits.Lister) ref.Val {
	elems := elements(l)
	for i := 1; i < len(elems); i++ {
		c := compare(elems[i-1], elems[i])
		if types.IsError(c) {
			return c
		}
		if c == types.IntOne {
			return types.False
		}
	}
	return types.True
}

// sum adds the elements; 0 for an empty list, as kube's does for ints.
func sum(l traits.Lister) ref.Val {
	elems := elements(l)
	if len(elems) == 0 {
		return types.IntZero
	}
	acc := elems[0]
	for _, e := range elems[1:] {
		adder, ok := acc.(traits.Adder)
		if !ok {
			return types.NewErr("no such overload: sum of %s", acc.Type().TypeName())
		}
		if acc = adder.Add(e); types.IsError(acc) {
			return acc
		}
	}
	return acc
}

// extreme is the least (want -1) or greatest (want 1) element.
func extreme(l traits.Lister, name string, want types.Int) ref.Val {
	elems := elements(l)
	if len(elems) == 0 {
		return types.NewErr("%s called on empty list", name)
	}
	best := elems[0]
	for _, e := range elems[1:] {
		c := compare(e, best)
		if types.IsError(c) {
			return c
		}
		if c == want {
			best = e
		}
	}
	return best
}

func indexOf(l traits.Lister, x ref.Val, last bool) ref.Val {
	elems := elements(l)
	found := types.Int(-1)
	for i, e := range elems {
		if e.Equal(x) == types.True {
			found = types.Int(i)
			if !last {
				break
			}
		}
	}
	return found
}
