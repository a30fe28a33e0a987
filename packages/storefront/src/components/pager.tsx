import Link from 'next/link';
import { withParams, type SearchParams } from '@/lib/search-params';

/** Previous and next page links of a paged list. */
export function Pager({
  path,
  params,
  page,
  totalPages,
}: {
  path: string;
  params: SearchParams;
  page: number;
  totalPages: number;
}) {
  if (totalPages <= 1) return null;
  return (
    <nav aria-label="Pages" className="pager">
      {page > 1 && <Link href={withParams(path, params, { page: String(page - 1) })}>Previous page</Link>}
      <span>
        Page {page} of {totalPages}
      </span>
      {page < totalPages && (
        <Link href={withParams(path, params, { page: String(page + 1) })}>Next page</Link>
      )}
    </nav>
  );
}
