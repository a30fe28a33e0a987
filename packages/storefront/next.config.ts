import type { NextConfig } from 'next';

/** The service's origin; the browser reaches its API through this app (same origin, first-party cookies). */
const api = (process.env.COMMERCE_API_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The SDK is compiled from its sources (tsconfig `paths`), so the storefront builds without a build of the SDK.
  // They import `./x.js` for `./x.ts`, as Node's ESM wants: webpack's extensionAlias maps them (Turbopack has no
  // such option yet, hence `--webpack` in the scripts).
  experimental: { externalDir: true },
  webpack(webpackConfig: { resolve: { extensionAlias?: Record<string, string[]> } }) {
    webpackConfig.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'] };
    return webpackConfig;
  },
  async rewrites() {
    return [{ source: '/api/v1/:path*', destination: `${api}/api/v1/:path*` }];
  },
};

export default config;
