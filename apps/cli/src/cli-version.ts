/** The CLI's version: the one in apps/cli/package.json (the bundle inlines the file). */
import pkg from '../package.json' with { type: 'json' };

export const CLI_VERSION: string = pkg.version;
