# Runs a command on a new pseudo-terminal, waits for it to print "ready", types ^C and prints
# everything the terminal showed, then "exit=<status>". For lagmon's terminal ^C tests.
import os
import pty
import select
import signal
import sys
import time

pid, fd = pty.fork()
if pid == 0:
    # A shell's background job starts with SIGINT and SIGQUIT ignored, a test runner may block
    # them, and exec keeps both: start the command as a terminal would.
    for number in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGQUIT})
    os.execv(sys.argv[1], sys.argv[1:])
buf = b''
deadline = time.time() + 30
while b'ready' not in buf and time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 1)
    if r:
        try:
            buf += os.read(fd, 1024)
        except OSError:
            break
time.sleep(0.2)
os.write(fd, b'\x03')
while True:
    r, _, _ = select.select([fd], [], [], 1)
    if r:
        try:
            data = os.read(fd, 1024)
        except OSError:
            break
        if not data:
            break
        buf += data
_, status = os.waitpid(pid, 0)
sys.stdout.write(buf.decode(errors="replace"))
print(f"exit={os.waitstatus_to_exitcode(status)}")
