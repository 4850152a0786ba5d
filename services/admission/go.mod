module github.com/kubesplit/kubesplit/services/admission

go 1.26.0
