package printers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// tables are every exported table with the headers kubectl prints for it
// (wide ones included), in kube's order.
var tables = map[string]struct {
	cols    []Column
	headers string
}{
	"APIService":                       {APIService, "Name Service Available Age"},
	"ClusterRole":                      {ClusterRole, "Name|Created At"},
	"ClusterRoleBinding":               {ClusterRoleBinding, "Name Role Age Users Groups ServiceAccounts"},
	"ConfigMap":                        {ConfigMap, "Name Data Age"},
	"CustomResourceDefinition":         {CustomResourceDefinition, "Name|Scope|Versions|Created At|Group|Kind|ShortNames|Established"},
	"Default":                          {Default, "Name|Created At"},
	"Deployment":                       {Deployment, "Name Ready Up-to-date Available Age Containers Images Selector"},
	"Event":                            {Event, "Last Seen|Type|Reason|Object|Subobject|Source|Message|First Seen|Count|Name"},
	"Lease":                            {Lease, "Name Holder Age"},
	"LimitRange":                       {LimitRange, "Name|Created At"},
	"MutatingWebhookConfiguration":     {MutatingWebhookConfiguration, "Name Webhooks Age"},
	"Namespace":                        {Namespace, "Name Status Age"},
	"Pod":                              {Pod, "Name|Ready|Status|Restarts|Age|IP|Node|Nominated Node|Readiness Gates"},
	"ResourceQuota":                    {ResourceQuota, "Name Request Limit Age"},
	"Role":                             {Role, "Name|Created At"},
	"RoleBinding":                      {RoleBinding, "Name Role Age Users Groups ServiceAccounts"},
	"Secret":                           {Secret, "Name Type Data Age"},
	"Service":                          {Service, "Name Type Cluster-IP External-IP Port(s) Age Selector"},
	"ServiceAccount":                   {ServiceAccount, "Name Secrets Age"},
	"ValidatingAdmissionPolicy":        {ValidatingAdmissionPolicy, "Name Validations ParamKind Age"},
	"ValidatingAdmissionPolicyBinding": {ValidatingAdmissionPolicyBinding, "Name PolicyName ParamRef Age"},
	"ValidatingWebhookConfiguration":   {ValidatingWebhookConfiguration, "Name Webhooks Age"},
}

func TestTableHeaders(t *testing.T) {
	for kind, tc := range tables {
		t.Run(kind, func(t *testing.T) {
			sep := " "
			if strings.Contains(tc.headers, "|") {
				sep = "|"
			}
			var got []string
			for _, d := range Definitions(tc.cols) {
				got = append(got, d.Name)
				if d.Description == "" || d.Type == "" {
					t.Errorf("column %s lacks a type or description", d.Name)
				}
				if (d.Name == "Name") != (d.Format == "name") {
					t.Errorf("column %s has format %q", d.Name, d.Format)
				}
			}
			if want := strings.Split(tc.headers, sep); !reflect.DeepEqual(got, want) {
				t.Errorf("headers = %q, want %q", got, want)
			}
			if kind != "Event" && tc.cols[0].Name != "Name" {
				t.Errorf("first column is %s, want Name", tc.cols[0].Name)
			}
		})
	}
}

// TestCellsNilSafe feeds every table objects that lack every field or hold
// the wrong types, which must still give one cell a column.
func TestCellsNilSafe(t *testing.T) {
	garbage := map[string]any{}
	for _, key := range []string{"metadata", "spec", "status", "data", "webhooks", "subjects", "roleRef",
		"involvedObject", "series", "source", "secrets", "type", "count", "message", "eventTime"} {
		garbage[key] = "not what you expect"
	}
	nullFields := map[string]any{"metadata": nil, "spec": map[string]any{"containers": []any{nil, 3}}, "status": nil}
	objs := []*unstructured.Unstructured{nil, {}, {Object: map[string]any{}}, {Object: garbage}, {Object: nullFields}}
	for kind, tc := range tables {
		for i, obj := range objs {
			if cells := Cells(tc.cols, obj); len(cells) != len(tc.cols) {
				t.Errorf("%s object %d: %d cells for %d columns", kind, i, len(cells), len(tc.cols))
			}
		}
	}
}

func TestRows(t *testing.T) {
	objs := []*unstructured.Unstructured{
		decode(t, `{"metadata":{"name":"a"},"data":{"k":"v"}}`),
		decode(t, `{"metadata":{"name":"b"}}`),
	}
	rows := Rows(ConfigMap, objs)
	if len(rows) != 2 || rows[0].Cells[0] != "a" || rows[0].Cells[1] != int64(1) || rows[1].Cells[0] != "b" {
		t.Fatalf("rows = %+v", rows)
	}
	if rows[0].Object.Raw != nil || rows[0].Object.Object != nil {
		t.Errorf("row object set: %+v", rows[0].Object)
	}
}

func TestCellTypes(t *testing.T) {
	// Integer cells are int64 whatever number type the decoder produced.
	for _, n := range []any{int64(4), float64(4), json.Number("4"), 4} {
		obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"updatedReplicas": n}}}
		if got := Cells(Deployment, obj)[2]; got != int64(4) {
			t.Errorf("updatedReplicas %T: cell = %#v", n, got)
		}
	}
}
