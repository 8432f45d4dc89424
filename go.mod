module github.com/btfgate/btfgate

go 1.26

require github.com/klauspost/compress v1.20.4
