package rbac

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

func selector(key string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{key: "true"}}
}

func TestAggregate(t *testing.T) {
	a := resourceRule(list("get"), list(""), list("a"))
	b := resourceRule(list("get"), list(""), list("b"))
	c := resourceRule(list("get"), list(""), list("c"))
	on := func(keys ...string) map[string]string {
		m := map[string]string{}
		for _, k := range keys {
			m[k] = "true"
		}
		return m
	}

	tests := []struct {
		name  string
		roles []rbacv1.ClusterRole
		want  map[string][]rbacv1.PolicyRule
	}{
		{
			name: "matches in name order, duplicates dropped",
			roles: []rbacv1.ClusterRole{
				aggregating("agg", selector("x")),
				labelled(clusterRoleOf("z", c, a), on("x")),
				labelled(clusterRoleOf("y", b, a), on("x")),
			},
			want: map[string][]rbacv1.PolicyRule{"agg": {b, a, c}, "y": {b, a}, "z": {c, a}},
		},
		{
			name: "selectors in order",
			roles: []rbacv1.ClusterRole{
				aggregating("agg", selector("second"), selector("first")),
				labelled(clusterRoleOf("a-first", a), on("first")),
				labelled(clusterRoleOf("b-second", b), on("second")),
			},
			want: map[string][]rbacv1.PolicyRule{"agg": {b, a}, "a-first": {a}, "b-second": {b}},
		},
		{
			name: "own rules ignored, self skipped",
			roles: []rbacv1.ClusterRole{
				func() rbacv1.ClusterRole {
					r := labelled(aggregating("agg", selector("x")), on("x"))
					r.Rules = []rbacv1.PolicyRule{c}
					return r
				}(),
				labelled(clusterRoleOf("leaf", a), on("x")),
			},
			want: map[string][]rbacv1.PolicyRule{"agg": {a}, "leaf": {a}},
		},
		{
			name: "chains",
			roles: []rbacv1.ClusterRole{
				aggregating("admin", selector("to-admin")),
				labelled(aggregating("edit", selector("to-edit")), on("to-admin")),
				labelled(aggregating("view", selector("to-view")), on("to-edit")),
				labelled(clusterRoleOf("x-admin", c), on("to-admin")),
				labelled(clusterRoleOf("x-edit", b), on("to-edit")),
				labelled(clusterRoleOf("x-view", a), on("to-view")),
			},
			want: map[string][]rbacv1.PolicyRule{
				"admin": {a, b, c}, "edit": {a, b}, "view": {a},
				"x-admin": {c}, "x-edit": {b}, "x-view": {a},
			},
		},
		{
			name: "cycles reach the union",
			roles: []rbacv1.ClusterRole{
				labelled(aggregating("p", selector("to-p")), on("to-q")),
				labelled(aggregating("q", selector("to-q")), on("to-p")),
				labelled(clusterRoleOf("leaf-p", a), on("to-p")),
				labelled(clusterRoleOf("leaf-q", b), on("to-q")),
			},
			want: map[string][]rbacv1.PolicyRule{
				"p": {a, b}, "q": {b, a}, "leaf-p": {a}, "leaf-q": {b},
			},
		},
		{
			name: "invalid selector matches nothing",
			roles: []rbacv1.ClusterRole{
				aggregating("agg", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "x", Operator: "Sometimes"},
				}}),
				labelled(clusterRoleOf("leaf", a), on("x")),
			},
			want: map[string][]rbacv1.PolicyRule{"agg": nil, "leaf": {a}},
		},
		{
			name: "empty selector matches every other role",
			roles: []rbacv1.ClusterRole{
				aggregating("all", metav1.LabelSelector{}),
				clusterRoleOf("one", a),
				clusterRoleOf("two", b),
			},
			want: map[string][]rbacv1.PolicyRule{"all": {a, b}, "one": {a}, "two": {b}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rbacpolicy.Aggregate(tt.roles)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("aggregate =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}
