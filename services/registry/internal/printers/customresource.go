package printers

import (
	"bytes"
	"fmt"
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
)

// CustomResource is the table of a custom resource version, as
// apiextensions-apiserver prints it: NAME, then the version's
// additionalPrinterColumns, each a JSONPath into the object; a version with
// none shows AGE.
func CustomResource(defs []apiextensionsv1.CustomResourceColumnDefinition) ([]Column, error) {
	if len(defs) == 0 {
		defs = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", Type: "date",
			Description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
			JSONPath:    ".metadata.creationTimestamp"}}
	}
	cols := []Column{nameColumn()}
	for _, d := range defs {
		path := jsonpath.New(d.Name)
		if err := path.Parse("{" + d.JSONPath + "}"); err != nil {
			return nil, fmt.Errorf("unrecognized column definition %q", d.JSONPath)
		}
		path.AllowMissingKeys(true)
		desc := d.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + d.JSONPath
		}
		cols = append(cols, Column{
			TableColumnDefinition: metav1.TableColumnDefinition{Name: d.Name, Type: d.Type, Format: d.Format,
				Description: desc, Priority: d.Priority},
			Cell: jsonPathCell(path, d.Type),
		})
	}
	return cols, nil
}

// jsonPathCell shows the first value the path finds: strings as kubectl's
// JSONPath prints them, other types as JSON values of the column's type.
func jsonPathCell(path *jsonpath.JSONPath, typ string) func(*unstructured.Unstructured) any {
	return func(u *unstructured.Unstructured) any {
		results, err := path.FindResults(u.Object)
		if err != nil || len(results) == 0 || len(results[0]) == 0 {
			return nil
		}
		value := results[0][0].Interface()
		if typ == "string" {
			var b bytes.Buffer
			if err := path.PrintResults(&b, []reflect.Value{reflect.ValueOf(value)}); err != nil {
				return nil
			}
			return b.String()
		}
		return typedCell(typ, value)
	}
}

// typedCell keeps a value that has the column's type, and drops one that
// has not, as kube does.
func typedCell(typ string, value any) any {
	switch typ {
	case "integer":
		switch v := value.(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		}
	case "number":
		switch v := value.(type) {
		case int64, float64:
			return v
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			return s
		}
	}
	return nil
}
