// Command authz will serve kubesplit's authz stage. It is a placeholder until the
// split chain lands (see DESIGN.md, "The five services"); it exits with an
// error so nobody mistakes it for a working stage.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "kubesplit-authz: not implemented yet")
	os.Exit(2)
}
