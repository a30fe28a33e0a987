import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The service serves the build at /admin; `npm run dev` proxies the API to a running service
// (COMMERCE_API, default http://localhost:3000).
const api = process.env.COMMERCE_API ?? 'http://localhost:3000';

export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  // The SDK from its sources (as the tests use it), so the console builds without a build of the SDK first.
  resolve: { alias: { '@commerce/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true },
  server: { proxy: { '/api': { target: api, ws: true } } },
  preview: { proxy: { '/api': { target: api, ws: true } } },
});
