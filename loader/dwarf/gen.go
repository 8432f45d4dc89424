package dwarf

// The String methods of the constant types are generated from the line
// comments in const.go and class.go.
//go:generate go run ./internal/gen -o const_string.go const.go class.go
