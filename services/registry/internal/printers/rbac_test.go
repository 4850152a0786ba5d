package printers

import "testing"

func TestBindingCells(t *testing.T) {
	pinClock(t)
	b := decode(t, `{"metadata":{"name":"admins"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"},
		"subjects":[
		  {"kind":"User","name":"alice"},{"kind":"User","name":"bob"},
		  {"kind":"Group","name":"ops"},
		  {"kind":"ServiceAccount","name":"deployer","namespace":"ci"}]}`)
	want := map[string]any{"Name": "admins", "Role": "ClusterRole/admin",
		"Users": "alice, bob", "Groups": "ops", "ServiceAccounts": "ci/deployer"}
	assertCells(t, RoleBinding, b, want)
	assertCells(t, ClusterRoleBinding, b, want)
	assertCells(t, RoleBinding, decode(t, `{"metadata":{"name":"none"}}`),
		map[string]any{"Role": "/", "Users": "", "Groups": "", "ServiceAccounts": ""})
	if d := Definitions(ClusterRoleBinding)[3].Description; d != "Users in the clusterRoleBinding" {
		t.Errorf("cluster role binding Users description = %q", d)
	}
}
