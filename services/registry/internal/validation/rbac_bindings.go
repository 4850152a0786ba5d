package validation

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultRoleBinding fills in the API groups kube's rbac/v1 defaulting
// supplies: rbac.authorization.k8s.io for roleRef and for User and Group
// subjects. (Not yet in the resource table; see the package report.)
func DefaultRoleBinding(obj *unstructured.Unstructured) { defaultBinding(obj) }

// DefaultClusterRoleBinding is DefaultRoleBinding for ClusterRoleBindings.
// (Not yet in the resource table; see the package report.)
func DefaultClusterRoleBinding(obj *unstructured.Unstructured) { defaultBinding(obj) }

// defaultBinding defaults the API groups of a binding. ServiceAccount
// subjects stay in the core group, which is the empty string.
func defaultBinding(obj *unstructured.Unstructured) {
	setDefault(mapAt(obj.Object, "roleRef"), "apiGroup", rbacv1.GroupName)
	for _, s := range mapsAt(obj.Object, "subjects") {
		if kind := stringAt(s, "kind"); kind == rbacv1.UserKind || kind == rbacv1.GroupKind {
			setDefault(s, "apiGroup", rbacv1.GroupName)
		}
	}
}

// ValidateRoleBinding checks a RoleBinding's roleRef and subjects and, on
// update, that it still binds the same role.
func ValidateRoleBinding(obj, old *unstructured.Unstructured) field.ErrorList {
	b, oldB, errs := decodePair[rbacv1.RoleBinding](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateRoleRef(b.RoleRef, rbacv1.GroupName, "Role", "ClusterRole")
	errs = append(errs, validateSubjects(b.Subjects, true)...)
	if oldB != nil {
		errs = append(errs, validateRoleRefUpdate(b.RoleRef, oldB.RoleRef)...)
	}
	return errs
}

// ValidateClusterRoleBinding checks a ClusterRoleBinding, which can only
// bind ClusterRoles, and whose ServiceAccount subjects need a namespace.
func ValidateClusterRoleBinding(obj, old *unstructured.Unstructured) field.ErrorList {
	b, oldB, errs := decodePair[rbacv1.ClusterRoleBinding](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateRoleRef(b.RoleRef, rbacv1.GroupName, "ClusterRole")
	errs = append(errs, validateSubjects(b.Subjects, false)...)
	if oldB != nil {
		errs = append(errs, validateRoleRefUpdate(b.RoleRef, oldB.RoleRef)...)
	}
	return errs
}

// validateRoleRef checks the group, kind and name of the bound role.
func validateRoleRef(ref rbacv1.RoleRef, group string, kinds ...string) field.ErrorList {
	var errs field.ErrorList
	refPath := field.NewPath("roleRef")
	if ref.APIGroup != group {
		errs = append(errs, field.NotSupported(refPath.Child("apiGroup"), ref.APIGroup, []string{group}))
	}
	if !setOf(kinds...)[ref.Kind] {
		errs = append(errs, field.NotSupported(refPath.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(refPath.Child("name"), ""))
	} else {
		errs = append(errs, invalidEach(refPath.Child("name"), ref.Name, path.ValidatePathSegmentName(ref.Name, false))...)
	}
	return errs
}

// validateRoleRefUpdate keeps roleRef fixed: changing what a binding grants
// in place would dodge the escalation check made when it was created.
func validateRoleRefUpdate(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref != old {
		return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
	}
	return nil
}

// validateSubjects checks each subject at subjects[i].
func validateSubjects(subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i := range subjects {
		errs = append(errs, validateSubject(&subjects[i], namespaced, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// validateSubject checks a subject's name, kind and API group. A
// ServiceAccount of a cluster-wide binding must say which namespace it is
// in; in a RoleBinding it defaults to the binding's.
func validateSubject(s *rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			errs = append(errs, dnsSubdomain(s.Name, p.Child("name"))...)
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind,
			[]string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}
