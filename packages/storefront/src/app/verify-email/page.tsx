import type { Metadata } from 'next';
import Link from 'next/link';
import { VerifyEmailForm } from '@/components/account-forms';
import { first, type SearchParams } from '@/lib/search-params';

export const metadata: Metadata = { title: 'Confirm your e-mail address' };

/** Where the registration e-mail's link leads (`?token=`). */
export default async function VerifyEmailPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const token = first((await searchParams).token);
  return (
    <>
      <h1>Confirm your e-mail address</h1>
      {token === undefined ? (
        <p>
          Open the link of the e-mail we sent you. <Link href="/account">Your account</Link>
        </p>
      ) : (
        <VerifyEmailForm token={token} />
      )}
    </>
  );
}
