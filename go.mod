module github.com/papermem/papermem

go 1.26.8

require (
	github.com/asg017/sqlite-vec-go-bindings v0.1.6 // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/dslipak/pdf v0.0.2 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.3.0 // indirect
	github.com/gorilla/mux v1.8.1
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/nguyenthenguyen/docx v0.0.0-20230621112118-9c8e795a11db // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/richardlehane/mscfb v1.0.7 // indirect
	github.com/richardlehane/msoleps v1.0.6 // indirect
	github.com/tiendc/go-deepcopy v1.7.2 // indirect
	github.com/xuri/efp v0.0.1 // indirect
	github.com/xuri/excelize/v2 v2.11.0 // indirect
	github.com/xuri/nfp v0.0.2-0.20250530014748-2ddeb826f9a9 // indirect
	golang.org/x/crypto v0.58.0
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.16.0
)
