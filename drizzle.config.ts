import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes SQL migrations to drizzle/; `echo-agent migrate` applies them.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/store/schema.ts', './src/store/catalog-schema.ts'],
  out: './drizzle',
});
