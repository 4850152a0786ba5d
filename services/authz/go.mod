module github.com/kubesplit/kubesplit/services/authz

go 1.26.0
