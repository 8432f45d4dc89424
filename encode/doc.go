// Package encode runs a whole BTF encode, phase by phase (an encoder, one
// method per phase): it opens the input, walks its compile units in
// parallel, converts each to BTF and splices the pieces in unit order,
// groups the functions and builds their facts (package functions, pahole's
// semantics), has the policies decide, emits what goes in, and
// deduplicates. The output does not depend on the number of workers.
package encode
