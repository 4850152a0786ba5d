module github.com/kubesplit/kubesplit/services/aggregator

go 1.26.0
