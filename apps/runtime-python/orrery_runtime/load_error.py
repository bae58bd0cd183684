"""Why a function's code could not be loaded; `code` is stable and machine-readable, the same codes as
the Node runtime (apps/runtime/src/load/load-error.ts): source_invalid, source_not_found,
source_fetch_failed, source_too_large, module_load_failed, entrypoint_not_found, entrypoint_not_function."""


class LoadError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message
