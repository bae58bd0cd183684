"""Deploy mode with --state-token-file (Kubernetes: the revision's mounted state Secret): the kubelet
rewrites the mounted file when the Secret changes (a master key rotation). The worker checks it every
few seconds and, when its token changed, rewrites its own token file in the work dir and has
ctx.state read it again (`on_change`): a rotated token reaches the function without a restart. (The
SDK re-reads the file by itself only after a 401; statesvc answers a token it no longer accepts 403.)"""
import threading

from .state_token_file import StateTokenFileError, read_state_token_file, write_state_token_file
from .structured_log import register_secret

CHECK_EVERY_SECONDS = 2.0


class MountedTokenRefresh:
    def __init__(self, mounted_path, work_dir, claims, log, on_change=None, every=CHECK_EVERY_SECONDS):
        """`claims`: {namespace, keyspace, token} as written at start."""
        self.mounted_path, self.work_dir, self.claims, self.log, self.every = mounted_path, work_dir, dict(claims), log, every
        self.on_change = on_change
        self._stop = threading.Event()
        self._problem = None

    def start(self):
        threading.Thread(target=self._run, name="token-refresh", daemon=True).start()

    def stop(self):
        self._stop.set()

    def check(self):
        """One look at the mounted file; True when the work dir's token file was rewritten."""
        try:
            token = read_state_token_file(self.mounted_path, self.claims["namespace"], self.claims["keyspace"])
        except StateTokenFileError as e:
            # Mid-update (the kubelet swaps a symlink) or removed: keep the token we have, say so once.
            if str(e) != self._problem:
                self._problem = str(e)
                self.log.warn("cannot read the mounted state token file; keeping the current token", {"error": str(e)})
            return False
        self._problem = None
        if token == self.claims["token"]:
            return False
        register_secret(token)
        self.claims["token"] = token
        write_state_token_file(self.work_dir, self.claims)
        if self.on_change:
            self.on_change()
        self.log.info("state token changed in the mounted file; token file rewritten", {"keyspace": self.claims["keyspace"]})
        return True

    def _run(self):
        while not self._stop.wait(self.every):
            try:
                self.check()
            except OSError as e:
                self.log.warn("cannot rewrite the state token file", {"error": str(e)})
