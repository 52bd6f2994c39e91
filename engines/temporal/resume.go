package wgtemporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/writegen/writegen/runtime"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ResumeWorkflow is the type of the workflow, and of its one activity, that
// RegisterResume registers and the schedule of ScheduleResume starts.
const ResumeWorkflow = "writegen.Resume"

// The bounds of one run of ResumeWorkflow: its activity may run for
// resumeTimeout and heartbeats, so that a worker that dies running it is
// noticed within resumeHeartbeat; the run ends after resumeRunTimeout even
// if no worker took it, and the schedule starts the next.
const (
	resumeTimeout    = 10 * time.Minute
	resumeHeartbeat  = 30 * time.Second
	resumeRunTimeout = resumeTimeout + 5*time.Minute
)

// WorkerRegistry is where RegisterResume registers a workflow and its
// activity: a worker.Worker, or the test suite's environments.
type WorkerRegistry interface {
	Registry
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// RegisterResume registers on w the workflow ResumeWorkflow, which runs one
// activity of the same type calling the Resume of each client in turn and
// returns the sum of their reports. Register it on every worker of the
// task queue the schedule of ScheduleResume names: any of them may run it.
func RegisterResume(w WorkerRegistry, clients ...Resumer) {
	w.RegisterActivityWithOptions(func(ctx context.Context) (runtime.ResumeReport, error) {
		return resume(ctx, clients)
	}, activity.RegisterOptions{Name: ResumeWorkflow})
	w.RegisterWorkflowWithOptions(resumeWorkflow, workflow.RegisterOptions{Name: ResumeWorkflow})
}

// resumeWorkflow runs the Resume activity once: the schedule starts the
// next run, so a failed one is not retried.
func resumeWorkflow(ctx workflow.Context) (runtime.ResumeReport, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: resumeTimeout,
		HeartbeatTimeout:    resumeHeartbeat,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var rep runtime.ResumeReport
	err := workflow.ExecuteActivity(ctx, ResumeWorkflow).Get(ctx, &rep)
	return rep, err
}

// resume calls the Resume of each client, heartbeating meanwhile.
func resume(ctx context.Context, clients []Resumer) (runtime.ResumeReport, error) {
	stop := heartbeat(ctx)
	defer stop()
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
}

// ResumeSchedule is the Temporal schedule that starts ResumeWorkflow.
type ResumeSchedule struct {
	ID        string        // the schedule's ID; "writegen-resume" when empty
	TaskQueue string        // the task queue of the workers on which RegisterResume registered
	Every     time.Duration // how often it starts ResumeWorkflow: a minute when 0; the server's floor is a second
}

// ScheduleResume creates the Temporal schedule s, or updates the one with
// its ID to s. The schedule starts ResumeWorkflow on s.TaskQueue every
// s.Every, one run at a time (a start that finds the last run still
// running is skipped): the claims of writes whose worker died are taken over
// once their lease ends and driven on with the same provider key, and
// uncertain rows whose lookup may be asked again (runtime.WithReask) are
// asked when they are due. The schedule lives in the Temporal server, so
// Resume keeps running whichever workers die, restart or are replaced;
// call ScheduleResume when a worker starts, as it is idempotent.
func ScheduleResume(ctx context.Context, c client.Client, s ResumeSchedule) (client.ScheduleHandle, error) {
	if s.ID == "" {
		s.ID = "writegen-resume"
	}
	if s.Every == 0 {
		s.Every = time.Minute
	}
	if s.TaskQueue == "" || s.Every < time.Second {
		return nil, fmt.Errorf("wgtemporal: schedule %q: want a task queue and a period of a second or more, have %q and %v", s.ID, s.TaskQueue, s.Every)
	}
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: s.Every}}}
	action := &client.ScheduleWorkflowAction{
		ID: s.ID, Workflow: ResumeWorkflow, TaskQueue: s.TaskQueue, WorkflowRunTimeout: resumeRunTimeout,
	}
	sc := c.ScheduleClient()
	h, err := sc.Create(ctx, client.ScheduleOptions{
		ID: s.ID, Spec: spec, Action: action, Overlap: enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		Note: "writegen: drives on the writes whose worker died, and re-asks uncertain writes when due",
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		h = sc.GetHandle(ctx, s.ID)
		err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			sch := in.Description.Schedule
			sch.Spec, sch.Action = &spec, action
			if sch.Policy == nil {
				sch.Policy = &client.SchedulePolicies{}
			}
			sch.Policy.Overlap = enums.SCHEDULE_OVERLAP_POLICY_SKIP
			return &client.ScheduleUpdate{Schedule: &sch}, nil
		}})
	}
	if err != nil {
		return nil, fmt.Errorf("wgtemporal: schedule %q: %w", s.ID, err)
	}
	return h, nil
}

// heartbeat records a heartbeat of the activity of ctx every third of its
// heartbeat timeout until the returned function is called; an activity
// without one records none.
func heartbeat(ctx context.Context) (stop func()) {
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { cancel(); <-done }
}
