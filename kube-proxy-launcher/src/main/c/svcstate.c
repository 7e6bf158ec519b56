/*
 * The launcher's service state machine (see svcstate.h for the contracts). Pure C: compiled into kube-proxy.exe with
 * mingw-w64 and, for the tests, into a shared library with the host gcc.
 */
#include "svcstate.h"

#include "cmdline.h"

#include <string.h>

/* The launcher's exit code when the agent ended on its own with 0: the service has failed all the same. */
#define ENDED_UNASKED 1u

void svc_default_timings(svc_timings *timings) {
    timings->wait_hint_ms = 10000;
    timings->heartbeat_ms = 2000;
    timings->ready_timeout_ms = 60000;
    timings->stop_timeout_ms = 30000;
}

uint32_t svc_machine_size(void) {
    return (uint32_t) sizeof(svc_machine);
}

void svc_init(svc_machine *machine, const svc_timings *timings) {
    memset(machine, 0, sizeof(*machine));
    machine->timings = *timings;
}

static svc_step nothing(void) {
    svc_step step;
    memset(&step, 0, sizeof(step));
    return step;
}

static int is_pending(uint32_t state) {
    return state == SVC_START_PENDING || state == SVC_STOP_PENDING;
}

/* The order of the states in a service's life, which is not the order of their Win32 values. */
static int rank(uint32_t state) {
    switch (state) {
    case SVC_START_PENDING:
        return 1;
    case SVC_RUNNING:
        return 2;
    case SVC_STOP_PENDING:
        return 3;
    case SVC_STOPPED:
        return 4;
    default:
        return 0;
    }
}

static uint32_t accepted(uint32_t state) {
    return state == SVC_START_PENDING || state == SVC_RUNNING ? SVC_ACCEPT_STOP | SVC_ACCEPT_SHUTDOWN : 0;
}

/*
 * Moves to `state` and returns the report; re-reporting a pending state advances its checkpoint. A backward move or
 * anything after STOPPED reports nothing.
 */
static svc_step report(svc_machine *m, uint32_t state, uint32_t win32_exit_code, uint32_t specific_exit_code,
        uint64_t now) {
    svc_step step = nothing();
    uint32_t current = m->status.current_state;
    if (current == SVC_STOPPED || rank(state) < rank(current)) {
        return step;
    }
    svc_status next;
    memset(&next, 0, sizeof(next));
    next.current_state = state;
    next.controls_accepted = accepted(state);
    next.win32_exit_code = win32_exit_code;
    next.service_specific_exit_code = specific_exit_code;
    if (is_pending(state)) {
        next.check_point = current == state ? m->status.check_point + 1 : 1;
        next.wait_hint = m->timings.wait_hint_ms;
    }
    m->status = next;
    m->last_report_at = now;
    step.actions = SVC_DO_REPORT;
    step.status = next;
    return step;
}

svc_step svc_start(svc_machine *m, uint64_t now) {
    if (m->status.current_state != 0) {
        return nothing();
    }
    m->started_at = now;
    return report(m, SVC_START_PENDING, SVC_NO_ERROR, 0, now);
}

svc_step svc_before_launch(svc_machine *m, uint64_t now) {
    if (m->status.current_state == SVC_STOPPED) {
        return nothing();
    }
    if (m->stop_requested) {
        return report(m, SVC_STOPPED, SVC_NO_ERROR, 0, now);
    }
    svc_step step = nothing();
    step.actions = SVC_DO_LAUNCH;
    return step;
}

svc_step svc_child_started(svc_machine *m, uint64_t now) {
    m->child_running = 1;
    if (m->status.current_state != SVC_START_PENDING) {
        return nothing();
    }
    return report(m, SVC_START_PENDING, SVC_NO_ERROR, 0, now);
}

svc_step svc_ready(svc_machine *m, uint64_t now) {
    if (m->status.current_state != SVC_START_PENDING || m->stop_requested) {
        return nothing();
    }
    return report(m, SVC_RUNNING, SVC_NO_ERROR, 0, now);
}

svc_step svc_tick(svc_machine *m, uint64_t now) {
    uint32_t state = m->status.current_state;
    if (state == SVC_START_PENDING && m->child_running && now - m->started_at >= m->timings.ready_timeout_ms) {
        m->ready_timed_out = 1;
        return report(m, SVC_RUNNING, SVC_NO_ERROR, 0, now);
    }
    svc_step step = nothing();
    if (state == SVC_STOP_PENDING && !m->terminated && m->child_running
            && now - m->stop_requested_at >= m->timings.stop_timeout_ms) {
        m->terminated = 1;
        step.actions |= SVC_DO_TERMINATE;
    }
    if (is_pending(state) && now - m->last_report_at >= m->timings.heartbeat_ms) {
        svc_step heartbeat = report(m, state, SVC_NO_ERROR, 0, now);
        step.actions |= heartbeat.actions;
        step.status = heartbeat.status;
    }
    return step;
}

svc_step svc_control(svc_machine *m, uint32_t control, uint64_t now) {
    svc_step step = nothing();
    switch (control) {
    case SVC_CONTROL_STOP:
    case SVC_CONTROL_SHUTDOWN:
    case SVC_CONTROL_PRESHUTDOWN:
        if (m->status.current_state == SVC_STOPPED) {
            return step;
        }
        if (m->stop_requested) {
            /* a second request: tell the SCM where the stop is (the checkpoint advances, the request is not repeated) */
            return report(m, SVC_STOP_PENDING, SVC_NO_ERROR, 0, now);
        }
        m->stop_requested = 1;
        m->stop_requested_at = now;
        step = report(m, SVC_STOP_PENDING, SVC_NO_ERROR, 0, now);
        step.actions |= SVC_DO_SIGNAL_STOP;
        return step;
    case SVC_CONTROL_INTERROGATE:
        if (m->status.current_state != 0) {
            step.actions = SVC_DO_REPORT;
            step.status = m->status;
        }
        return step;
    default:
        step.handler_result = SVC_ERROR_CALL_NOT_IMPLEMENTED;
        return step;
    }
}

svc_step svc_child_exited(svc_machine *m, uint32_t exit_code, uint64_t now) {
    m->child_running = 0;
    if (m->stop_requested) {
        return report(m, SVC_STOPPED, SVC_NO_ERROR, 0, now);
    }
    return report(m, SVC_STOPPED, SVC_ERROR_SERVICE_SPECIFIC_ERROR, exit_code != 0 ? exit_code : ENDED_UNASKED, now);
}

svc_step svc_launch_failed(svc_machine *m, uint32_t exit_code, uint64_t now) {
    m->child_running = 0;
    return report(m, SVC_STOPPED, SVC_ERROR_SERVICE_SPECIFIC_ERROR, exit_code != 0 ? exit_code : ENDED_UNASKED, now);
}

static uint64_t until(uint64_t deadline, uint64_t now) {
    return deadline > now ? deadline - now : 0;
}

uint32_t svc_next_wait(const svc_machine *m, uint64_t now) {
    uint32_t state = m->status.current_state;
    if (!is_pending(state)) {
        return SVC_WAIT_FOREVER;
    }
    uint64_t wait = until(m->last_report_at + m->timings.heartbeat_ms, now);
    if (state == SVC_START_PENDING && m->child_running) {
        uint64_t ready = until(m->started_at + m->timings.ready_timeout_ms, now);
        wait = ready < wait ? ready : wait;
    }
    if (state == SVC_STOP_PENDING && m->child_running && !m->terminated) {
        uint64_t stop = until(m->stop_requested_at + m->timings.stop_timeout_ms, now);
        wait = stop < wait ? stop : wait;
    }
    return (uint32_t) wait;
}

int svc_ready_timed_out(const svc_machine *m) {
    return m->ready_timed_out;
}

int svc_run_as_service(int windows_service_flag, int started_by_scm) {
    switch (windows_service_flag) {
    case CMDLINE_FLAG_TRUE:
    case CMDLINE_FLAG_INVALID:
        return 1;
    case CMDLINE_FLAG_FALSE:
        return 0;
    default:
        return started_by_scm != 0;
    }
}
