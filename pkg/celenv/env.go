// Package celenv is the CEL environment of ValidatingAdmissionPolicy
// expressions, shared by the registry (which refuses a policy whose
// expressions do not compile, as kube-apiserver's validation does) and the
// admission service (which evaluates them), so that what one accepts the
// other can run.
//
// The variables are kube's: object, oldObject, request, params,
// namespaceObject and variables. They are declared dynamically typed
// (kube types object and params from the resources' OpenAPI schemas), so
// a misspelt field is found when evaluated, not when compiled.
// authorizer is not declared: an expression using it does not compile.
package celenv

import (
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
)

// The variables an expression can use, under kube's names.
const (
	Object          = "object"
	OldObject       = "oldObject"
	Request         = "request"
	Params          = "params"
	NamespaceObject = "namespaceObject"
	Variables       = "variables"
)

// Env is the environment every policy expression compiles in. It is built
// once: building one costs more than compiling most expressions.
var Env = sync.OnceValues(newEnv)

func newEnv() (*cel.Env, error) {
	return cel.NewEnv(append([]cel.EnvOption{
		cel.Variable(Object, cel.DynType),
		cel.Variable(OldObject, cel.DynType),
		cel.Variable(Request, cel.DynType),
		cel.Variable(Params, cel.DynType),
		cel.Variable(NamespaceObject, cel.DynType),
		cel.Variable(Variables, cel.MapType(cel.StringType, cel.DynType)),
	}, libraries()...)...)
}

// libraries are the options and libraries every environment here shares.
func libraries() []cel.EnvOption {
	return []cel.EnvOption{
		// The options and extension libraries of kube's environment (its
		// own libraries apart from regex are not offered).
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		ext.Lists(ext.ListsVersion(3)),
		regexLibrary(),
		listsLibrary(),
	}
}
