import { router } from '../../trpc.ts';
import { login } from './login.handler.ts';
import { logout } from './logout.handler.ts';
import { permissions } from './permissions.handler.ts';
import { whoami } from './whoami.handler.ts';

export const authRouter = router({ login, logout, whoami, permissions });
