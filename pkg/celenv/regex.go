package celenv

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// regexLibrary is kube's regex functions on strings, which cel-go's own
// extensions name differently: s.find(re) is the first match of re in s
// ("" when none), s.findAll(re) every match, s.findAll(re, n) at most n.
func regexLibrary() cel.EnvOption {
	return cel.Lib(regexLib{})
}

type regexLib struct{}

func (regexLib) LibraryName() string { return "kubesplit.regex" }

func (regexLib) ProgramOptions() []cel.ProgramOption { return nil }

func (regexLib) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("find",
			cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
				cel.BinaryBinding(find))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return findAll(s, re, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], args[2]) }))),
	}
}

func find(s, re ref.Val) ref.Val {
	r, err := regexp.Compile(string(re.(types.String)))
	if err != nil {
		return types.NewErr("%v", err)
	}
	return types.String(r.FindString(string(s.(types.String))))
}

func findAll(s, re, n ref.Val) ref.Val {
	r, err := regexp.Compile(string(re.(types.String)))
	if err != nil {
		return types.NewErr("%v", err)
	}
	matches := r.FindAllString(string(s.(types.String)), int(n.(types.Int)))
	return types.DefaultTypeAdapter.NativeToValue(append([]string{}, matches...))
}
