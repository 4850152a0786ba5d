package celenv

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
)

func TestCompile(t *testing.T) {
	cases := map[string]struct {
		expr    string
		want    *cel.Type
		wantErr string
	}{
		"object field":       {expr: "object.spec.replicas <= 5", want: Bool},
		"all variables":      {expr: "request.operation == 'CREATE' && oldObject == null && params == null && namespaceObject == null && variables.x == 1", want: Bool},
		"syntax error":       {expr: "object.spec.replicas <", want: Bool, wantErr: "compilation failed: ERROR: <input>:1:23: Syntax error"},
		"undeclared":         {expr: "objekt.spec", want: Bool, wantErr: "undeclared reference to 'objekt'"},
		"authorizer missing": {expr: "authorizer.group('').resource('pods').check('get').allowed()", want: Bool, wantErr: "undeclared reference to 'authorizer'"},
		"wrong type":         {expr: "'a string'", want: Bool, wantErr: "must evaluate to bool"},
		"message string":     {expr: "'replicas: ' + string(object.spec.replicas)", want: String},
		"annotation null":    {expr: "null", want: StringOrNull},
		"annotation int":     {expr: "1", want: StringOrNull, wantErr: "must evaluate to string or null"},
		"strings extension":  {expr: "'a,b'.split(',').size() == 2", want: Bool},
		"sets extension":     {expr: "sets.contains([1, 2], [1])", want: Bool},
		"regex find":         {expr: "'abc123'.find('[0-9]+') == '123' && 'a1b2'.findAll('[0-9]') == ['1', '2']", want: Bool},
		"optional field":     {expr: "object.?spec.?replicas.orValue(1) > 0", want: Bool},
		"list functions":     {expr: "[1, 2].isSorted() && [1, 2].sum() == 3 && object.items.min() == 1 && [1, 2, 1].lastIndexOf(1) == 2", want: Bool},
		"variable any type":  {expr: "object.metadata.name", want: Any},
	}
	for name, c := range cases {
		_, err := Compile(c.expr, c.want)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.wantErr != "" && (err == nil || !errors.Is(err, ErrCompile) || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want %q", name, err, c.wantErr)
		}
	}
}

// TestEvaluate runs kube's library functions this environment adds.
func TestEvaluate(t *testing.T) {
	object := map[string]any{"items": []any{int64(3), int64(1), int64(2)}, "names": []any{"b", "a"}}
	cases := map[string]any{
		"'abc123def45'.find('[0-9]+')":       "123",
		"'abc123def45'.findAll('[0-9]+')":    []any{"123", "45"},
		"'abc123def45'.findAll('[0-9]+', 1)": []any{"123"},
		"'abc'.find('[0-9]+')":               "",
		"object.items.sum()":                 int64(6),
		"[1.5, 2.0].sum()":                   3.5,
		"object.items.min()":                 int64(1),
		"object.items.max()":                 int64(3),
		"object.names.min()":                 "a",
		"object.items.isSorted()":            false,
		"[1, 2, 2].isSorted()":               true,
		"object.items.indexOf(2)":            int64(2),
		"[1, 2, 1].lastIndexOf(1)":           int64(2),
		"object.names.indexOf('z')":          int64(-1),
		"[].sum()":                           int64(0),
		"object.?missing.orValue('default')": "default",
	}
	for expr, want := range cases {
		prg, err := Compile(expr, Any)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		val, _, err := prg.Eval(map[string]any{Object: object})
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		got, err := val.ConvertToNative(reflect.TypeOf(want))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v (%v), want %v", expr, val, err, want)
		}
	}
	prg, err := Compile("[].min()", Any)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := prg.Eval(map[string]any{}); err == nil || !strings.Contains(err.Error(), "min called on empty list") {
		t.Errorf("min of an empty list: %v", err)
	}
}
