package authz

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/services/authz/internal/filewatch"
)

// sarWebhook is a SubjectAccessReview webhook that answers every review
// with status, or with code when it is not 200; it counts its calls.
func sarWebhook(t *testing.T, code int, status authorizationv1.SubjectAccessReviewStatus, calls *int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*calls++
		var review authorizationv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || code != http.StatusOK {
			http.Error(w, "refused", code)
			return
		}
		review.Status = status
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// kubeconfigFor writes a kubeconfig reaching url.
func kubeconfigFor(t *testing.T, dir, name, url string) string {
	t.Helper()
	return writeFile(t, dir, name+".kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, url))
}

// webhookEntry is one Webhook authorizer of an AuthorizationConfiguration.
func webhookEntry(name, kubeconfig, failurePolicy, timeout, match string) string {
	conditions := ""
	if match != "" {
		conditions = fmt.Sprintf("\n    matchConditions: [{expression: %q}]", match)
	}
	return fmt.Sprintf(`
- type: Webhook
  name: %s
  webhook:
    timeout: %s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: %s
    authorizedTTL: 1ms
    unauthorizedTTL: 1ms
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: %q}%s`, name, timeout, failurePolicy, kubeconfig, conditions)
}

const configHeader = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:`

// TestAuthorizationConfig: a chain of several webhooks, each with its own
// match conditions and failure policy, then the Casbin mode.
func TestAuthorizationConfig(t *testing.T) {
	dir := t.TempDir()
	var podsCalls, brokenCalls, configmapCalls int
	pods := kubeconfigFor(t, dir, "pods", sarWebhook(t, http.StatusOK, authorizationv1.SubjectAccessReviewStatus{Allowed: true}, &podsCalls))
	broken := kubeconfigFor(t, dir, "broken", sarWebhook(t, http.StatusBadRequest, authorizationv1.SubjectAccessReviewStatus{}, &brokenCalls))
	configmaps := kubeconfigFor(t, dir, "cm", sarWebhook(t, http.StatusBadRequest, authorizationv1.SubjectAccessReviewStatus{}, &configmapCalls))
	file := writeFile(t, dir, "authz.yaml", configHeader+
		webhookEntry("pods", pods, "Deny", "3s", "request.resourceAttributes.resource == 'pods'")+
		webhookEntry("secrets-broken", broken, "Deny", "2s", "request.resourceAttributes.resource == 'secrets'")+
		webhookEntry("configmaps-broken", configmaps, "NoOpinion", "5s", "request.resourceAttributes.resource == 'configmaps'")+`
- type: Casbin
  name: casbin
`)
	cfg := Config{
		AuthorizationConfigFile: file,
		CasbinModel:             writeFile(t, dir, "model.conf", ownersModel),
		CasbinPolicy:            writeFile(t, dir, "policy.csv", ownersPolicy),
	}
	e, err := buildTest(t, cfg, revision.NewFeed())
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := user("alice"), user("bob")
	checkBoth(t, e, []engineCase{
		{"pods webhook allows", resourceReq(bob, "get", "team-x", "pods", "p"), authz.DecisionAllow, false},
		{"failing webhook that fails closed", resourceReq(alice, "get", "team-a", "secrets", "s"), authz.DecisionDeny, true},
		{"failing webhook that fails open, then casbin allows", resourceReq(alice, "update", "team-a", "configmaps", "c"), authz.DecisionAllow, false},
		{"failing webhook that fails open, casbin has no opinion", resourceReq(bob, "update", "team-a", "configmaps", "c"), authz.DecisionNoOpinion, true},
		{"no webhook matches, casbin allows", resourceReq(alice, "get", "team-a", "services", "s"), authz.DecisionAllow, false},
	})
	if podsCalls == 0 || brokenCalls == 0 || configmapCalls == 0 {
		t.Errorf("webhook calls: pods %d, secrets %d, configmaps %d; want each asked", podsCalls, brokenCalls, configmapCalls)
	}
}

func TestAuthorizationConfigRefuses(t *testing.T) {
	dir := t.TempDir()
	kc := kubeconfigFor(t, dir, "wh", "http://127.0.0.1:1")
	cases := map[string]struct {
		cfg  Config
		want string
	}{
		"with modes": {Config{AuthorizationConfigFile: writeFile(t, dir, "ok.yaml", configHeader+"\n- {type: AlwaysAllow, name: alwaysallow}\n"),
			AuthorizationModes: []string{authz.ModeRBAC}}, "mutually exclusive"},
		"missing file": {Config{AuthorizationConfigFile: dir + "/absent.yaml"}, "absent.yaml"},
		"not yaml":     {Config{AuthorizationConfigFile: writeFile(t, dir, "bad.yaml", "authorizers: [\n")}, "bad.yaml"},
		"no authorizers": {Config{AuthorizationConfigFile: writeFile(t, dir, "empty.yaml", configHeader+" []\n")},
			"authorizers"},
		"unknown type": {Config{AuthorizationConfigFile: writeFile(t, dir, "unknown.yaml", configHeader+"\n- {type: Bogus, name: bogus}\n")},
			"Bogus"},
		"misnamed": {Config{AuthorizationConfigFile: writeFile(t, dir, "misnamed.yaml", configHeader+"\n- {type: AlwaysAllow, name: allow}\n")},
			"must be named alwaysallow"},
		"bad CEL": {Config{AuthorizationConfigFile: writeFile(t, dir, "cel.yaml", configHeader+
			webhookEntry("w", kc, "Deny", "3s", "request.resourceAttributes.resource ==")+"\n")}, "matchConditions"},
		"no failure policy": {Config{AuthorizationConfigFile: writeFile(t, dir, "policy.yaml", configHeader+
			webhookEntry("w", kc, "Maybe", "3s", "")+"\n")}, "failurePolicy"},
		"casbin without files": {Config{AuthorizationConfigFile: writeFile(t, dir, "casbin.yaml", configHeader+"\n- {type: Casbin, name: casbin}\n")},
			"--casbin-model"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := buildTest(t, c.cfg, revision.NewFeed())
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("buildChain = %v, want ErrInvalidConfig naming %q", err, c.want)
			}
		})
	}
}

// TestAuthorizationConfigReload: as in kube-apiserver, a changed file
// replaces the webhooks and the order, within the aggregator's 100 ms and
// with a new revision; the other authorizers must stay those it started
// with, and a version that does not load changes nothing.
func TestAuthorizationConfigReload(t *testing.T) {
	dir := t.TempDir()
	var calls int
	pods := kubeconfigFor(t, dir, "pods", sarWebhook(t, http.StatusOK, authorizationv1.SubjectAccessReviewStatus{Allowed: true}, &calls))
	casbinOnly := configHeader + "\n- {type: Casbin, name: casbin}\n"
	withWebhook := configHeader + webhookEntry("pods", pods, "Deny", "3s", "request.resourceAttributes.resource == 'pods'") + "\n" +
		"- {type: Casbin, name: casbin}\n"
	file := writeFile(t, dir, "authz.yaml", withWebhook)
	feed := revision.NewFeed()
	e, err := buildTest(t, Config{
		AuthorizationConfigFile: file,
		CasbinModel:             writeFile(t, dir, "model.conf", ownersModel),
		CasbinPolicy:            writeFile(t, dir, "policy.csv", ownersPolicy),
	}, feed)
	if err != nil {
		t.Fatal(err)
	}
	bobPods := resourceReq(user("bob"), "get", "team-x", "pods", "p")
	if d := decision(t, e.authorizer, bobPods); d != authz.DecisionAllow {
		t.Fatalf("with the webhook: %v, want Allow", d)
	}
	before, _ := feed.Current()
	writeFile(t, dir, "authz.yaml", casbinOnly)
	if took := waitForDecision(t, e.authorizer, bobPods, authz.DecisionNoOpinion); took > time.Second {
		t.Errorf("reload took %v", took)
	}
	waitForRevision(t, feed, before+1)

	after, _ := feed.Current()
	for name, bad := range map[string]string{
		"a new type":  configHeader + "\n- {type: Casbin, name: casbin}\n- {type: AlwaysAllow, name: alwaysallow}\n",
		"a type gone": configHeader + webhookEntry("pods", pods, "Deny", "3s", "") + "\n",
		"not yaml":    "authorizers: [\n",
	} {
		writeFile(t, dir, "authz.yaml", bad)
		time.Sleep(10 * filewatch.DefaultInterval)
		if rev, _ := feed.Current(); rev != after {
			t.Errorf("%s: the revision moved from %d to %d", name, after, rev)
		}
		if d := decision(t, e.authorizer, bobPods); d != authz.DecisionNoOpinion {
			t.Errorf("%s: %v, want the chain in force's NoOpinion", name, d)
		}
	}
}
