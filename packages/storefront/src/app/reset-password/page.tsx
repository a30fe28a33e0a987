import type { Metadata } from 'next';
import { ResetConfirmForm, ResetRequestForm } from '@/components/account-forms';
import { first, type SearchParams } from '@/lib/search-params';

export const metadata: Metadata = { title: 'Reset your password' };

/** Without a token: ask for the e-mail. With the e-mail's link (`?token=`): choose the new password. */
export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const token = first((await searchParams).token);
  return (
    <>
      <h1>Reset your password</h1>
      {token === undefined ? <ResetRequestForm /> : <ResetConfirmForm token={token} />}
    </>
  );
}
