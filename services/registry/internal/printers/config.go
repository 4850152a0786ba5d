package printers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ConfigMap is the table of core/v1 config maps: NAME DATA AGE, where DATA
// counts the keys of data and binaryData together.
var ConfigMap = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Data", Type: "string", Description: corev1.ConfigMap{}.SwaggerDoc()["data"]},
		Cell: func(u *unstructured.Unstructured) any {
			return int64(len(object(u.Object, "data")) + len(object(u.Object, "binaryData")))
		}},
	ageColumn(),
}

// Secret is the table of core/v1 secrets: NAME TYPE DATA AGE.
var Secret = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Type", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["type"]},
		Cell: strCell("type")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Data", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["data"]},
		Cell: func(u *unstructured.Unstructured) any { return int64(len(object(u.Object, "data"))) }},
	ageColumn(),
}

// ServiceAccount is the table of core/v1 service accounts: NAME SECRETS AGE.
var ServiceAccount = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Secrets", Type: "string", Description: corev1.ServiceAccount{}.SwaggerDoc()["secrets"]},
		Cell: func(u *unstructured.Unstructured) any { return int64(len(list(u.Object, "secrets"))) }},
	ageColumn(),
}
