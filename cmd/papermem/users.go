package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
	"github.com/spf13/cobra"
)

func usersCmd(t *target, stdout io.Writer) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "users",
		Short: "List the workspace's users: the user ids --user takes on a server",
		Long: "Lists the accounts of the workspace the commands work in, oldest first, with the user_id that --user " +
			"(or $PAPERMEM_USER) takes for per-user memory (remember, recall-user, forget) with an API key. " +
			"On a database file --user takes any name; its accounts are those signed up on a server over that file.",
		Args: wantArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := t.check(); err != nil {
				return err
			}
			res, err := t.users(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, res)
			}
			if len(res.Users) == 0 {
				fmt.Fprintln(stdout, "The workspace has no users: on a database file --user takes any name (default $USER).")
				return nil
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "USER_ID\tEMAIL\tNAME\tROLE\tLAST_SEEN")
			for _, u := range res.Users {
				state := cmp.Or(u.LastSeen, "-")
				if u.Disabled {
					state += " (disabled)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.UserID, u.Email, cmp.Or(u.Name, "-"), u.Role, state)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(stdout, count(res.Count, "user"))
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	return c
}

// users lists the users of the workspace the commands work in.
func (t *target) users(ctx context.Context) (res *api.UsersResponse, err error) {
	if t.remote() {
		return t.client().Users(ctx)
	}
	m, err := t.openDB(ctx, reads)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := m.Close(); err == nil {
			err = cerr
		}
	}()
	svc, err := hosted.New(m, nil)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, svc.Close()) }()
	all, err := svc.AllWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	org, err := t.pick(all, reads)
	if err != nil {
		return nil, err
	}
	users, err := svc.Workspace(org).Users(ctx)
	if err != nil {
		return nil, err
	}
	return &api.UsersResponse{Users: users, Count: len(users)}, nil
}
