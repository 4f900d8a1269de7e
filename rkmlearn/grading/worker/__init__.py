"""The sandboxed side of grading: the zygote and the workers it forks, one per test.

Nothing here runs in the judge or the runners: :class:`rkmlearn.grading.sandbox.Sandbox`
starts ``python -m rkmlearn.grading.worker.zygote`` with a clean environment, and this package
imports only the standard library (numpy through :mod:`rkmlearn.grading.wire`, once the
process is confined). One module per wall:

``zygote``      the process's entry point: the set-up order, the fork requests, the process
                tree zygote -> outer -> init (PID 1) -> worker (PID 2)
``privileges``  parent-death signal, sandbox uid, capabilities, resource limits
``namespaces``  the zygote's network namespace; each worker's PID and mount namespaces
``landlock``    the kernel's file, network and signal rules for each worker
``seccomp``     the system calls a worker may not make (libseccomp)
``audit``       the in-process audit hook: the exercise's rules with clear messages
``serve``       what a worker does: import the submission, answer the judge's calls
"""
