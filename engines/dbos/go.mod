module github.com/writegen/writegen/engines/dbos

go 1.26.0

require github.com/writegen/writegen v0.0.0

require github.com/dbos-inc/dbos-transact-golang v1.8.0 // indirect

replace github.com/writegen/writegen => ../..
