// drizzle-kit config: `npm run generate -w @orrery/db` writes a new migration into packages/db/drizzle.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/schema/index.ts',
  out: './drizzle',
});
