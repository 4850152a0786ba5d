package printers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// MutatingWebhookConfiguration is the table of admissionregistration.k8s.io
// mutating webhook configurations: NAME WEBHOOKS AGE.
var MutatingWebhookConfiguration = webhookColumns()

// ValidatingWebhookConfiguration is the table of validating webhook
// configurations: NAME WEBHOOKS AGE.
var ValidatingWebhookConfiguration = webhookColumns()

// webhookColumns builds the webhook configuration table, the same for both
// kinds.
func webhookColumns() []Column {
	return []Column{
		nameColumn(),
		{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Webhooks", Type: "integer",
			Description: "Webhooks indicates the number of webhooks registered in this configuration"},
			Cell: func(u *unstructured.Unstructured) any { return int64(len(list(u.Object, "webhooks"))) }},
		ageColumn(),
	}
}

// ValidatingAdmissionPolicy is the table of validating admission policies:
// NAME VALIDATIONS PARAMKIND AGE.
var ValidatingAdmissionPolicy = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Validations", Type: "integer",
		Description: "Validations indicates the number of validation rules defined in this configuration"},
		Cell: func(u *unstructured.Unstructured) any { return int64(len(list(u.Object, "spec", "validations"))) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "ParamKind", Type: "string",
		Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		Cell: policyParamKind},
	ageColumn(),
}

// ValidatingAdmissionPolicyBinding is the table of validating admission
// policy bindings: NAME POLICYNAME PARAMREF AGE.
var ValidatingAdmissionPolicyBinding = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "PolicyName", Type: "string",
		Description: "PolicyName indicates the policy definition which the policy binding binded to"},
		Cell: strCell("spec", "policyName")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "ParamRef", Type: "string",
		Description: "ParamRef indicates the param resource which sets the configration param"},
		Cell: bindingParamRef},
	ageColumn(),
}

// policyParamKind is "apiVersion/kind" of the policy's parameters, or
// "<unset>" for a policy without any.
func policyParamKind(u *unstructured.Unstructured) any {
	pk := object(u.Object, "spec", "paramKind")
	if pk == nil {
		return "<unset>"
	}
	return str(pk, "apiVersion") + "/" + str(pk, "kind")
}

// bindingParamRef names the binding's parameter resource: "namespace/name",
// "*/name" when the namespace is left to the request, or the selector.
func bindingParamRef(u *unstructured.Unstructured) any {
	ref := object(u.Object, "spec", "paramRef")
	if ref == nil {
		return "<unset>"
	}
	if name := str(ref, "name"); name != "" {
		if ns := str(ref, "namespace"); ns != "" {
			return ns + "/" + name
		}
		return "*/" + name
	}
	sel := object(ref, "selector")
	if sel == nil {
		return "<unset>"
	}
	// Kube prints the selector with the Go type's generated String(),
	// not in selector syntax; doing the same keeps the cell identical.
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(sel, &ls); err != nil {
		return "<invalid>"
	}
	return ls.String()
}
