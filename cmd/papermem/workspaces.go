package main

import (
	"cmp"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
	"github.com/spf13/cobra"
)

func workspacesCmd(t *target, stdout io.Writer) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "workspaces",
		Short: "List the workspaces, marking the one the commands work in",
		Long: "On a database file: every workspace it holds, with its papers, documents and notes; " +
			"the commands work in --workspace, else \"default\", else the file's only workspace. " +
			"On a server: the credential's workspace and those its user created, with the same counts.",
		Args: wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if err := t.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			if t.remote() {
				res, err := t.client().Workspaces(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, res)
				}
				if err := printWorkspaces(stdout, res.Workspaces, res.Current); err != nil {
					return err
				}
				fmt.Fprintln(stdout, "* the API key's workspace, which the commands work in")
				return nil
			}
			m, err := t.openDB(ctx, reads)
			if err != nil {
				return err
			}
			defer func() {
				if cerr := m.Close(); err == nil {
					err = cerr
				}
			}()
			all, err := allWorkspaces(ctx, m)
			if err != nil {
				return err
			}
			current, perr := t.pick(all, reads)
			if asJSON {
				// Current is "" when none is chosen.
				return writeJSON(stdout, api.WorkspacesResponse{Workspaces: all, Current: current})
			}
			if len(all) == 0 {
				fmt.Fprintf(stdout, "%s holds no workspace yet: the first write creates %q\n", t.dbName(), cmp.Or(t.workspace, papermem.DefaultWorkspace))
				return nil
			}
			if err := printWorkspaces(stdout, all, current); err != nil {
				return err
			}
			if perr != nil {
				fmt.Fprintf(stdout, "none chosen: %s\n", papermem.ErrorMessage(perr))
				return nil
			}
			fmt.Fprintln(stdout, "* the workspace the commands work in (--workspace chooses another)")
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: the workspaces and the current one")
	return c
}

// printWorkspaces prints the workspaces all as a table, marking current.
func printWorkspaces(w io.Writer, all []hosted.WorkspaceSummary, current string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, " \tORG_ID\tNAME\tPLAN\tPAPERS\tDOCUMENTS\tNOTES\tCREATED")
	for _, ws := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", mark(ws.WorkspaceID == current), ws.WorkspaceID, cmp.Or(ws.Name, "-"), ws.Plan,
			ws.Papers, ws.Documents, ws.Memories, ws.CreatedAt)
	}
	return tw.Flush()
}

// mark is the marker of the current row.
func mark(current bool) string {
	if current {
		return "*"
	}
	return ""
}
