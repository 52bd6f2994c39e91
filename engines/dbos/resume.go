package wgdbos

import (
	"context"
	"errors"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/writegen/writegen/runtime"
)

// ResumeWorkflow is the name of the workflow that RegisterResume registers
// and of the schedule that ScheduleResume keeps.
const ResumeWorkflow = "writegen.Resume"

// RegisterResume registers, before dbos.Launch, the workflow ResumeWorkflow:
// one step that calls the Resume of each client in turn and returns the sum
// of their reports. ScheduleResume starts it on a schedule.
func RegisterResume(ctx dbos.Context, clients ...Resumer) {
	dbos.RegisterWorkflow(ctx, func(ctx dbos.Context, _ dbos.ScheduledWorkflowInput) (runtime.ResumeReport, error) {
		return dbos.RunAsStep(ctx, func(ctx context.Context) (runtime.ResumeReport, error) {
			var rep runtime.ResumeReport
			var errs []error
			for _, c := range clients {
				r, err := c.Resume(ctx)
				rep = rep.Add(r)
				if err != nil {
					errs = append(errs, err)
				}
			}
			return rep, errors.Join(errs...)
		}, dbos.WithStepName(ResumeWorkflow), dbos.WithStepMaxRetries(0))
	}, dbos.WithWorkflowName(ResumeWorkflow))
}

// ScheduleResume creates the DBOS schedule ResumeWorkflow, or updates it to
// cron, a cron expression with seconds ("0 * * * * *": every minute). The
// schedule is kept in DBOS's system database: every process that launches
// DBOS with RegisterResume's workflow registered runs it, and each tick
// starts one workflow, so Resume goes on whichever processes die or restart.
// Call it when a process starts, before or after dbos.Launch (a launched
// process picks a new or changed schedule up within the configured
// SchedulerPollingInterval); it is idempotent.
func ScheduleResume(ctx dbos.Context, cron string) error {
	return dbos.ApplySchedules(ctx, []dbos.ScheduleSpec{{
		ScheduleName: ResumeWorkflow, WorkflowName: ResumeWorkflow, Schedule: cron,
	}})
}
