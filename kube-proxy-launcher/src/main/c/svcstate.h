/*
 * kube-proxy.exe as a Windows service, without Windows headers: which SERVICE_STATUS the launcher reports for which
 * event, and what it must do next (signal the agent to stop, terminate it, launch it). service.c feeds it the
 * events and carries out the steps; the tests drive it directly.
 *
 * Life of the service:
 *   svc_start            START_PENDING, checkpoint 1, accepting STOP and SHUTDOWN (a stop while starting is
 *                        honoured), wait hint timings.wait_hint_ms
 *   svc_before_launch    LAUNCH, or STOPPED (exit code 0) when a stop came first: the agent is then never started
 *   svc_child_started    START_PENDING with the next checkpoint
 *   svc_ready            RUNNING, accepting STOP and SHUTDOWN (when still starting and no stop was requested)
 *   svc_tick             while pending, the next checkpoint every heartbeat_ms; RUNNING after ready_timeout_ms
 *                        without svc_ready (the agent keeps trying, as upstream kube-proxy does); TERMINATE once
 *                        stop_timeout_ms after a stop request
 *   svc_control          STOP, SHUTDOWN, PRESHUTDOWN: STOP_PENDING (checkpoint 1, no controls accepted) and
 *                        SIGNAL_STOP, once; INTERROGATE: the current status again; others: not implemented
 *   svc_child_exited     STOPPED: after a stop request NO_ERROR and 0, whatever the agent returned (the operator asked
 *                        for the stop; a failure code would make the SCM restart it); otherwise
 *                        ERROR_SERVICE_SPECIFIC_ERROR with the agent's code, or 1 when it returned 0 unasked (a
 *                        service that ends on its own has failed, and only a non-zero code fires the recovery
 *                        actions)
 *   svc_launch_failed    STOPPED, ERROR_SERVICE_SPECIFIC_ERROR with the given code (no Java, no agent jar, ...)
 * States only move forward (START_PENDING -> RUNNING -> STOP_PENDING -> STOPPED; any may be skipped), and nothing is
 * reported after STOPPED.
 *
 * Time is whatever monotonic milliseconds the caller passes (GetTickCount64 in the launcher). A machine is not
 * thread-safe: the launcher calls it under one lock from the service-main and the control-handler threads. No
 * function allocates.
 */
#ifndef WINPROXY_SVCSTATE_H
#define WINPROXY_SVCSTATE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SVC_API
#else
#define SVC_API __attribute__((visibility("default")))
#endif

/* dwCurrentState values (winsvc.h). */
#define SVC_STOPPED 1u
#define SVC_START_PENDING 2u
#define SVC_STOP_PENDING 3u
#define SVC_RUNNING 4u

/* Controls (winsvc.h SERVICE_CONTROL_*). */
#define SVC_CONTROL_STOP 0x1u
#define SVC_CONTROL_INTERROGATE 0x4u
#define SVC_CONTROL_SHUTDOWN 0x5u
#define SVC_CONTROL_PRESHUTDOWN 0xFu

/* dwControlsAccepted bits (winsvc.h SERVICE_ACCEPT_*). */
#define SVC_ACCEPT_STOP 0x1u
#define SVC_ACCEPT_SHUTDOWN 0x4u

/* Win32 codes (winerror.h). */
#define SVC_NO_ERROR 0u
#define SVC_ERROR_CALL_NOT_IMPLEMENTED 120u
#define SVC_ERROR_SERVICE_SPECIFIC_ERROR 1066u

/* svc_step.actions bits: what the caller does, in this order. */
#define SVC_DO_REPORT 0x1u      /* SetServiceStatus(step.status) */
#define SVC_DO_SIGNAL_STOP 0x2u /* set the event the agent waits on, so that it stops gracefully */
#define SVC_DO_LAUNCH 0x4u      /* start the agent */
#define SVC_DO_TERMINATE 0x8u   /* the agent outlived the stop timeout: end it (its job) */

/* dwWaitHint etc. for svc_next_wait when nothing is due: INFINITE. */
#define SVC_WAIT_FOREVER 0xFFFFFFFFu

/* SERVICE_STATUS without dwServiceType (always SERVICE_WIN32_OWN_PROCESS). */
typedef struct {
    uint32_t current_state;
    uint32_t controls_accepted;
    uint32_t win32_exit_code;
    uint32_t service_specific_exit_code;
    uint32_t check_point;
    uint32_t wait_hint;
} svc_status;

typedef struct {
    uint32_t actions;        /* SVC_DO_* bits */
    svc_status status;       /* what to report when actions has SVC_DO_REPORT */
    uint32_t handler_result; /* what the control handler returns (svc_control only; otherwise SVC_NO_ERROR) */
} svc_step;

typedef struct {
    uint32_t wait_hint_ms;     /* dwWaitHint of every pending report; longer than heartbeat_ms */
    uint32_t heartbeat_ms;     /* how often a pending state is re-reported with the next checkpoint */
    uint32_t ready_timeout_ms; /* START_PENDING lasts at most this long after svc_start */
    uint32_t stop_timeout_ms;  /* after a stop request, how long the agent gets before TERMINATE */
} svc_timings;

/* The machine; treat as opaque (svc_machine_size tells its size to callers that cannot include this header). */
typedef struct {
    svc_timings timings;
    svc_status status; /* the last status reported; current_state 0 before svc_start */
    uint64_t started_at;
    uint64_t last_report_at;
    uint64_t stop_requested_at;
    int stop_requested;
    int child_running;
    int terminated;
    int ready_timed_out;
} svc_machine;

/* 10 s wait hint, 2 s heartbeat, RUNNING after 60 s at the latest, 30 s to stop: as the agent's own service host. */
SVC_API void svc_default_timings(svc_timings *timings);

SVC_API uint32_t svc_machine_size(void);

SVC_API void svc_init(svc_machine *machine, const svc_timings *timings);

SVC_API svc_step svc_start(svc_machine *machine, uint64_t now);
SVC_API svc_step svc_before_launch(svc_machine *machine, uint64_t now);
SVC_API svc_step svc_child_started(svc_machine *machine, uint64_t now);
SVC_API svc_step svc_ready(svc_machine *machine, uint64_t now);
SVC_API svc_step svc_tick(svc_machine *machine, uint64_t now);
SVC_API svc_step svc_control(svc_machine *machine, uint32_t control, uint64_t now);
SVC_API svc_step svc_child_exited(svc_machine *machine, uint32_t exit_code, uint64_t now);
SVC_API svc_step svc_launch_failed(svc_machine *machine, uint32_t exit_code, uint64_t now);

/* Milliseconds until svc_tick has something to do (0 when overdue), or SVC_WAIT_FOREVER. */
SVC_API uint32_t svc_next_wait(const svc_machine *machine, uint64_t now);

/* Whether RUNNING was reported because the ready timeout passed rather than because the agent was ready. */
SVC_API int svc_ready_timed_out(const svc_machine *machine);

/*
 * Whether kube-proxy.exe runs as a service: `windows_service_flag` is cmdline_bool_flag's result for
 * --windows-service, `started_by_scm` whether the parent process is the SCM. The flag decides when given (an invalid
 * value counts as given, so that the agent's refusal reaches the SCM and the Event Log); without it, whether the SCM
 * started the process (windowsRunAsService: true in a --config file).
 */
SVC_API int svc_run_as_service(int windows_service_flag, int started_by_scm);

#ifdef __cplusplus
}
#endif

#endif
