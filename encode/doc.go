// Package encode runs a whole BTF encode: it opens the input, walks its
// compile units in parallel, converts each to BTF, splices the pieces in CU
// order, deduplicates and writes the result. The output does not depend on
// the number of workers.
package encode
