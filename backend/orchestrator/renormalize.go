package orchestrator

import (
	"context"
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Renormalize rewrites stored messages normalized by an older version from
// their raw data and raw format, in batches (one transaction each), emitting
// "renormalize:progress" after each. Each row's rawData is fed to a fresh
// normalizer of its format and the last message event with the row's
// message id replaces normalizedData. A row without raw data, of an unknown
// format, or whose raw data no longer yields that message keeps its data and
// only gets the new version (logged), so it is not retried at every start.
// It returns when done or when ctx is cancelled; run it in a goroutine.
func (o *Orchestrator) Renormalize(ctx context.Context) (done int, err error) {
	total, err := store.CountStaleMessages(ctx, o.db.R, o.version)
	if err != nil || total == 0 {
		return 0, err
	}
	o.log.Info("orchestrator: re-normalizing stored messages", "rows", total, "version", o.version)
	o.out.Emit(EventRenormalize, ProgressPayload{Done: 0, Total: total})
	var after int64
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		rows, err := store.StaleMessages(ctx, o.db.R, o.version, after, o.opt.RenormalizeBatch)
		if err != nil {
			return done, err
		}
		if len(rows) == 0 {
			break
		}
		if err := o.rewriteRows(ctx, rows); err != nil {
			return done, err
		}
		after = rows[len(rows)-1].RowID
		done += len(rows)
		o.out.Emit(EventRenormalize, ProgressPayload{Done: done, Total: max(total, done)})
	}
	return done, nil
}

// rewriteRows re-normalizes rows from their raw data and stores them at the
// current version, in one transaction; a row whose raw data no longer
// yields its message keeps its data (logged) and only gets the version.
func (o *Orchestrator) rewriteRows(ctx context.Context, rows []store.StoredMessage) error {
	return o.db.Tx(ctx, func(tx *txT) error {
		for _, row := range rows {
			data, role, why := o.renormalizeRow(row)
			if why != "" {
				o.log.Warn("orchestrator: re-normalize kept old data", "row", row.RowID, "task", row.TaskID,
					"message", row.MessageID, "format", row.Format, "why", why)
			}
			if err := store.RewriteMessage(ctx, tx, row.RowID, data, role, o.version); err != nil {
				return err
			}
		}
		return nil
	})
}

// renormalizeRow returns the row's new normalized data and role, or nil and
// why it kept the old data.
func (o *Orchestrator) renormalizeRow(row store.StoredMessage) ([]byte, string, string) {
	if row.Raw == nil {
		return nil, "", "" // made by the orchestrator itself (user follow-up): nothing to redo
	}
	f, err := o.formats.Get(row.Format)
	if err != nil {
		return nil, "", err.Error()
	}
	m, err := agent.Rebuild(f, row.Raw, row.MessageID)
	if err != nil {
		return nil, "", err.Error()
	}
	store.StampTimestamp(&m, row.CreatedAt)
	if m.Parts == nil {
		m.Parts = []agent.Part{}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, "", err.Error()
	}
	return data, string(m.Role), ""
}

// repairBehind re-normalizes the rows a crash left behind their raw data
// (store.BehindVersion: a row's changes wait up to rowInterval while its
// frames are stored at once), in one transaction per batch, before Recover
// adopts or resumes anything that reads them. It returns how many it
// repaired.
func (o *Orchestrator) repairBehind(ctx context.Context) (int, error) {
	var after int64
	done := 0
	for {
		rows, err := store.BehindMessages(ctx, o.db.R, after, 200)
		if err != nil || len(rows) == 0 {
			return done, err
		}
		if err := o.rewriteRows(ctx, rows); err != nil {
			return done, err
		}
		after, done = rows[len(rows)-1].RowID, done+len(rows)
	}
}
