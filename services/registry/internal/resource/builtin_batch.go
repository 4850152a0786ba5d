package resource

import (
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
)

// batch is batch/v1: Jobs and CronJobs.
func batch() []*Info {
	const g = "batch"
	all := []string{"all"}
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "jobs", Kind: "Job", Singular: "job", Namespaced: true,
			Categories: all, StatusSubresource: true,
			OrphanWarning: "child pods are preserved by default when jobs are deleted; " +
				"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"},
			job.Strategy, status(job.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "cronjobs", Kind: "CronJob", Singular: "cronjob", Namespaced: true,
			ShortNames: []string{"cj"}, Categories: all, StatusSubresource: true},
			cronjob.Strategy, status(cronjob.StatusStrategy)),
	}
}
