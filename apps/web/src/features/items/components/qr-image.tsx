import { useTranslation } from 'react-i18next';

import { useQrImage } from '../api';

/** A tag's QR code; a placeholder of the same size holds its place until the image arrives (no layout shift). */
/** `decorative` where the text beside it already names the item (inside a link, the alt text would lengthen its name). */
export function QrImage({ code, size = 160, decorative = false }: { code: string; size?: number; decorative?: boolean }) {
  const { t } = useTranslation();
  const image = useQrImage(code);
  const style = { width: size, height: size };
  if (!image.data) {
    return (
      <div
        className="qr qr--placeholder"
        style={style}
        {...(decorative ? { 'aria-hidden': true } : { role: 'img', 'aria-label': t('qr.loading'), 'aria-busy': image.isPending || undefined })}
      />
    );
  }
  return <img className="qr" style={style} width={size} height={size} src={`data:image/svg+xml;base64,${image.data.trim()}`} alt={decorative ? '' : t('qr.alt', { code })} />;
}
