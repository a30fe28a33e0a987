import type { NextConfig } from 'next';

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
};

export default config;
