package handler

import (
	"net/http"
	"testing"
)

const batchPod = `{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}`

func init() {
	for k, v := range map[string]string{
		"batch/jobs":     `{"spec":{"template":` + batchPod + `}}`,
		"batch/cronjobs": `{"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":` + batchPod + `}}}}`,
	} {
		kindSamples[k] = v
	}
}

// A new Job gets kube's generated selector, which needs the uid the
// registry assigns before kube's strategy runs, and its template is then
// immutable, as kube-apiserver v1.37.2 answers.
func TestJobSelectorIsGeneratedFromItsUID(t *testing.T) {
	e := newEnv(t)
	const jobs = "/apis/batch/v1/namespaces/ns/jobs"
	job := e.mustDo("POST", jobs, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":`+batchPod+`}}`,
		http.StatusCreated)
	uid := str(job, "metadata.uid")
	selector, _ := at(job, "spec.selector.matchLabels").(map[string]any)
	labels, _ := at(job, "spec.template.metadata.labels").(map[string]any)
	if uid == "" || selector["batch.kubernetes.io/controller-uid"] != uid ||
		labels["batch.kubernetes.io/controller-uid"] != uid || labels["batch.kubernetes.io/job-name"] != "j" {
		t.Fatalf("job without kube's generated selector: %v", job)
	}
	resp, body := e.do("PATCH", jobs+"/j", `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}}}`,
		"Content-Type", "application/merge-patch+json")
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("template change of a running job: %d %s", resp.StatusCode, body)
	}
}
