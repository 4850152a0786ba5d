// Package customresource serves the objects a CustomResourceDefinition
// defines, as kube-apiserver's apiextensions server does: it turns each
// served version of a CRD into a resource.Info (names, scope,
// subresources, printer columns) whose pruning, defaulting and validation
// are apiextensions-apiserver's own code over the version's structural
// schema, and keeps the registry's handler and discovery in step with the
// CRDs in storage. The objects themselves go through the same generic
// store and handlers as built-in types.
package customresource

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	crstrategy "k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Schema is one served version's schema as kube's apiextensions server
// holds it: the structural schema objects are pruned and defaulted with,
// and kube's customresource strategies, which validate against it (the
// OpenAPI keywords and CEL rules, with oldSelf and ratcheting on update,
// embedded ObjectMeta, list types, scale paths).
type Schema struct {
	structural *structuralschema.Structural
	object     rest.RESTUpdateStrategy
	status     rest.RESTUpdateStrategy
	create     rest.RESTCreateStrategy
}

// NewSchema compiles the schema of crd's version v, as kube's CRD handler
// does when it starts serving it.
func NewSchema(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion, kind string) (*Schema, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, v.Name)
	if err != nil {
		return nil, err
	}
	internal := &apiextensions.CustomResourceValidation{}
	var props *apiextensions.JSONSchemaProps
	if val != nil {
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
			return nil, err
		}
		props = internal.OpenAPIV3Schema
	}
	s := &Schema{}
	if props != nil {
		st, err := structuralschema.NewStructural(props)
		if err != nil {
			return nil, fmt.Errorf("the schema is not structural: %w", err)
		}
		// Defaults are pruned once, as kube does, so that a default never
		// brings back a field pruning removes.
		s.structural = st.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s.structural); err != nil {
			return nil, err
		}
	}
	if err := s.strategies(crd, v, kind, props); err != nil {
		return nil, err
	}
	return s, nil
}

// strategies builds kube's strategies for the object and its status.
func (s *Schema) strategies(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion,
	kind string, props *apiextensions.JSONSchemaProps) error {
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return err
	}
	var status *apiextensions.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	var scale *apiextensions.CustomResourceSubresourceScale
	if sub := v.Subresources; sub != nil {
		if sub.Status != nil {
			status = &apiextensions.CustomResourceSubresourceStatus{}
			if props != nil {
				if ss, ok := props.Properties["status"]; ok {
					if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&ss); err != nil {
						return err
					}
				}
			}
		}
		if sub.Scale != nil {
			scale = &apiextensions.CustomResourceSubresourceScale{}
			if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sub.Scale, scale, nil); err != nil {
				return err
			}
		}
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: kind}
	object := crstrategy.NewStrategy(unstructuredscheme.NewUnstructuredObjectTyper(), crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		gvk, validator, statusValidator, s.structural, status, scale, v.SelectableFields)
	s.object, s.create, s.status = object, object, crstrategy.NewStatusStrategy(object)
	return nil
}

// Prune removes from obj what its schema does not declare, and malformed
// or unknown ObjectMeta fields, as kube's decoding of a custom resource
// does. It returns the paths it removed ("spec.foo", "metadata.bar") for
// fieldValidation to report.
func (s *Schema) Prune(obj map[string]any) []string {
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		// Validation reports a metadata that is no ObjectMeta.
		return nil
	}
	if s.structural != nil {
		unknown = append(unknown, structuralpruning.PruneWithOptions(obj, s.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
		_, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, s.structural, false,
			schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		unknown = append(unknown, paths...)
	}
	if found {
		_ = schemaobjectmeta.SetObjectMeta(obj, meta)
	}
	return unknown
}

// Default fills in the schema's defaults, as kube does on decoding a
// request and on reading from storage.
func (s *Schema) Default(obj map[string]any) {
	if s.structural != nil {
		structuraldefaulting.Default(obj, s.structural)
	}
}

// Validate checks a create (old nil) or an update of the object itself
// with kube's strategy.
func (s *Schema) Validate(obj, old map[string]any) field.ErrorList {
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: obj}
	if old == nil {
		return s.create.Validate(ctx, u)
	}
	return s.object.ValidateUpdate(ctx, u, &unstructured.Unstructured{Object: old})
}

// Warnings are kube's strategy's warnings for a valid write of the object
// (old nil on create; status set for the status subresource): a new
// finalizer whose name is not domain-qualified.
func (s *Schema) Warnings(obj, old map[string]any, status bool) []string {
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: obj}
	switch {
	case old == nil:
		return s.create.WarningsOnCreate(ctx, u)
	case status:
		return s.status.WarningsOnUpdate(ctx, u, &unstructured.Unstructured{Object: old})
	}
	return s.object.WarningsOnUpdate(ctx, u, &unstructured.Unstructured{Object: old})
}

// ValidateStatus checks an update through the status subresource: only
// status (and metadata) is validated, as kube's status strategy does.
func (s *Schema) ValidateStatus(obj, old map[string]any) field.ErrorList {
	return s.status.ValidateUpdate(context.Background(), &unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: old})
}
