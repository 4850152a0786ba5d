package validation

import "testing"

const validRoleBinding = `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: "system:authenticated"}
- {kind: ServiceAccount, name: builder}
`

func TestValidateRoleBinding(t *testing.T) {
	base := object(t, validRoleBinding)
	runValidation(t, ValidateRoleBinding, []validationCase{
		{name: "valid", obj: base},
		{name: "roleRef kind", obj: with(t, base, edit{"roleRef.kind", "Policy"}),
			want: []string{"roleRef.kind: Unsupported value"}},
		{name: "roleRef group", obj: with(t, base, edit{"roleRef.apiGroup", "example.com"}),
			want: []string{"roleRef.apiGroup: Unsupported value"}},
		{name: "roleRef name", obj: with(t, base, edit{"roleRef.name", removed}),
			want: []string{"roleRef.name: Required value"}},
		{name: "roleRef name is a path segment", obj: with(t, base, edit{"roleRef.name", "a/b"}),
			want: []string{"roleRef.name: Invalid value"}},
		{name: "subject kind", obj: with(t, base, edit{"subjects[0].kind", "Robot"}),
			want: []string{"subjects[0].kind: Unsupported value"}},
		{name: "user subject group", obj: with(t, base, edit{"subjects[0].apiGroup", removed}),
			want: []string{"subjects[0].apiGroup: Unsupported value"}},
		{name: "service account in core group", obj: with(t, base, edit{"subjects[2].apiGroup", "rbac.authorization.k8s.io"}),
			want: []string{"subjects[2].apiGroup: Unsupported value"}},
		{name: "subject name", obj: with(t, base, edit{"subjects[1].name", ""}),
			want: []string{"subjects[1].name: Required value"}},
	})
}

func TestValidateRoleBindingUpdate(t *testing.T) {
	old := object(t, validRoleBinding)
	runValidation(t, ValidateRoleBinding, []validationCase{
		{name: "subjects may change", old: old, obj: with(t, old, edit{"subjects", []any{}})},
		{name: "roleRef immutable", old: old, obj: with(t, old, edit{"roleRef.name", "admin"}),
			want: []string{"roleRef: Invalid value"}},
	})
}

func TestValidateClusterRoleBinding(t *testing.T) {
	base := object(t, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: admins}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: "system:masters"}
- {kind: ServiceAccount, name: operator, namespace: ops}
`)
	runValidation(t, ValidateClusterRoleBinding, []validationCase{
		{name: "valid", obj: base},
		{name: "only ClusterRoles", obj: with(t, base, edit{"roleRef.kind", "Role"}),
			want: []string{"roleRef.kind: Unsupported value"}},
		{name: "service account needs a namespace", obj: with(t, base, edit{"subjects[1].namespace", removed}),
			want: []string{"subjects[1].namespace: Required value"}},
		{name: "roleRef immutable", old: base, obj: with(t, base, edit{"roleRef.name", "view"}),
			want: []string{"roleRef: Invalid value"}},
	})
}

func TestDefaultBindings(t *testing.T) {
	bare := object(t, `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read}
roleRef: {kind: Role, name: reader}
subjects: [{kind: User, name: alice}, {kind: Group, name: devs}, {kind: ServiceAccount, name: builder},
  {kind: User, name: bob, apiGroup: example.com}]
`)
	want := map[string]any{
		"roleRef.apiGroup":     "rbac.authorization.k8s.io",
		"subjects[0].apiGroup": "rbac.authorization.k8s.io",
		"subjects[1].apiGroup": "rbac.authorization.k8s.io",
		"subjects[2].apiGroup": nil,
		"subjects[3].apiGroup": "example.com",
	}
	runDefaults(t, DefaultRoleBinding, []defaultCase{{name: "role binding", obj: bare, want: want}})
	runDefaults(t, DefaultClusterRoleBinding, []defaultCase{{name: "cluster role binding", obj: bare, want: want}})
}
