"""A private RabbitMQ node for tests: python3 -c 'import rabbitmq' from this folder, or run it.

RabbitMQ(...) starts Debian's rabbitmq-server (3.10, whose rabbitmq_amqp1_0 plugin speaks AMQP 1.0 on
the AMQP port) as a node of its own: its own node name, AMQP and Erlang distribution ports (both on
127.0.0.1 only, epmd too), data, log, config, plugins and feature-flags files under a temporary folder
(owned by the `rabbitmq` user when run as root, the node then running as that user), and the `guest`
login allowed from 127.0.0.1 (`loopback_users = none`). stop() runs `rabbitmqctl stop` and removes
the folder. Nothing of the system's own node (/var/lib/rabbitmq, /etc/rabbitmq) is read or written.

When rabbitmq-server is missing or the node does not start, RabbitMQ.unavailable() says why (and
start() raises Unavailable): a test then reports itself skipped (exit 77, ctest SKIP_RETURN_CODE).

Addresses: /queue/NAME (a durable classic queue, declared on first use), /exchange/NAME/KEY.
Run alone, `rabbitmq.py` starts a node, prints its port and waits for Ctrl-C (for benchmarks by hand).
"""

import os
import pwd
import random
import shutil
import socket
import subprocess
import tempfile
import time

RABBITMQ_BIN = "/usr/lib/rabbitmq/bin"
SKIP_CODE = 77


class Unavailable(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RabbitMQ:
    """One private node; use as a context manager, or start() / stop()."""

    def __init__(self, config_extra=""):
        self.config_extra = config_extra
        self.folder = None
        self.proc = None
        self.port = None

    @staticmethod
    def unavailable():
        """Why no node can be started here (None when one may)."""
        if not os.path.exists(os.path.join(RABBITMQ_BIN, "rabbitmq-server")):
            return "rabbitmq-server is not installed (tools/setup-debian installs it)"
        return None

    def _env(self):
        env = dict(os.environ)
        env.update({
            "HOME": self.folder,
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_MNESIA_BASE": os.path.join(self.folder, "mnesia"),
            "RABBITMQ_LOG_BASE": os.path.join(self.folder, "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": os.path.join(self.folder, "enabled_plugins"),
            "RABBITMQ_CONFIG_FILE": os.path.join(self.folder, "rabbitmq"),
            "RABBITMQ_FEATURE_FLAGS_FILE": os.path.join(self.folder, "feature_flags"),
            "RABBITMQ_PID_FILE": os.path.join(self.folder, "node.pid"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": os.path.join(self.folder, "advanced.config"),
            "RABBITMQ_CONF_ENV_FILE": os.path.join(self.folder, "rabbitmq-env.conf"),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
            "ERL_EPMD_PORT": str(self.epmd_port),
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
            "RABBITMQ_CTL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        })
        return env

    def _as_node_user(self):
        if os.geteuid() != 0:
            return []
        return ["setpriv", "--reuid=rabbitmq", "--regid=rabbitmq", "--init-groups"]

    def ctl(self, *args, timeout=60):
        """rabbitmqctl against this node; (exit code, output)."""
        r = subprocess.run(self._as_node_user() + [os.path.join(RABBITMQ_BIN, "rabbitmqctl"), "-n", self.node]
                           + list(args), env=self._env(), capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr

    def start(self, timeout=60):
        why = self.unavailable()
        if why:
            raise Unavailable(why)
        self.folder = tempfile.mkdtemp(prefix="sift-rabbitmq-")
        self.port = free_port()
        self.dist_port = free_port()
        self.epmd_port = free_port()
        self.node = "sift%d_%d@localhost" % (os.getpid(), random.randrange(1 << 30))
        for sub in ("mnesia", "log"):
            os.makedirs(os.path.join(self.folder, sub))
        with open(os.path.join(self.folder, "enabled_plugins"), "w") as f:
            f.write("[rabbitmq_amqp1_0].\n")
        with open(os.path.join(self.folder, "rabbitmq.conf"), "w") as f:
            f.write("listeners.tcp.1 = 127.0.0.1:%d\n" % self.port)
            f.write("loopback_users = none\n")
            f.write("log.file.level = warning\n")
            f.write("log.console = false\n")
            f.write(self.config_extra)
        with open(os.path.join(self.folder, "advanced.config"), "w") as f:
            f.write("[].\n")
        open(os.path.join(self.folder, "rabbitmq-env.conf"), "w").close()
        if os.geteuid() == 0:
            user = pwd.getpwnam("rabbitmq")
            os.chmod(self.folder, 0o700)
            for root, dirs, files in os.walk(self.folder):
                for name in dirs + files + [""]:
                    os.chown(os.path.join(root, name), user.pw_uid, user.pw_gid)
        self.log = open(os.path.join(self.folder, "server.out"), "w+")
        self.proc = subprocess.Popen(self._as_node_user() + [os.path.join(RABBITMQ_BIN, "rabbitmq-server")],
                                     env=self._env(), stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        # rabbitmqctl await_startup fails at once while the node is not yet registered with epmd: wait for
        # the AMQP listener first (opened late in the boot), then for the boot to complete.
        deadline = time.monotonic() + timeout
        code, out = 1, "the AMQP port did not open within %d s" % timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            except OSError:
                time.sleep(0.2)
                continue
            code, out = self.ctl("await_startup", "--timeout", str(timeout), timeout=timeout + 30)
            break
        if code != 0:
            self.log.seek(0)
            detail = self.log.read()[-2000:]
            self.stop()
            raise Unavailable("the private RabbitMQ node did not start: %s %s" % (out.strip()[-1000:], detail))
        return self

    def url(self, address):
        return "amqp://127.0.0.1:%d%s" % (self.port, address)

    def queue_depth(self, name):
        code, out = self.ctl("list_queues", "-q", "--no-table-headers", "name", "messages")
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == name:
                return int(parts[1])
        return None

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                code, _ = self.ctl("stop", timeout=60)
                if code != 0:
                    os.killpg(self.proc.pid, 15)
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, 9)
                    self.proc.wait()
            # The node's epmd (on a port of its own) outlives the node: end it once no node is left on it.
            subprocess.run(self._as_node_user() + ["epmd", "-kill"], env=self._env(), capture_output=True)
            self.proc = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


if __name__ == "__main__":
    with RabbitMQ() as node:
        print("rabbitmq: node %s on 127.0.0.1:%d (folder %s); Ctrl-C stops it" % (node.node, node.port, node.folder),
              flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
