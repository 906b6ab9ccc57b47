package cli

import (
	"context"
	"fmt"
)

// CmdImport imports the sessions the agent CLIs keep on disk.
const CmdImport Command = "import"

func importCmd(ctx context.Context, opt Options, env Env) int {
	_ = ctx
	fmt.Fprintln(env.Stderr, "import: not implemented yet")
	return ExitError
}
