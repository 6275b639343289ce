import type { EmailTexts } from './email-texts';

export const es: EmailTexts = {
  layout: {
    greeting: 'Hola:',
    linkHint: 'Si el botón no funciona, copia esta dirección en tu navegador:',
    signature: 'El equipo de Homing',
    footer: 'Recibes este correo porque esta dirección tiene una cuenta de Homing. Homing devuelve a casa las cosas perdidas.',
  },
  mails: {
    'login-code': {
      subject: 'Tu código de acceso a Homing',
      intro: ['Este es el código para entrar en Homing. Sirve una sola vez, durante 10 minutos.'],
      action: 'Entrar',
      outro: ['¿No has pedido un código? Puedes ignorar este correo; nadie puede entrar sin él.'],
    },
    'password-reset': {
      subject: 'Restablece tu contraseña de Homing',
      intro: ['Alguien ha pedido restablecer la contraseña de tu cuenta de Homing. Elige una nueva contraseña con el botón de abajo. El enlace sirve una sola vez, durante 60 minutos.'],
      action: 'Elegir una nueva contraseña',
      outro: ['¿No lo has pedido tú? Puedes ignorar este correo; tu contraseña no cambia.'],
    },
    welcome: {
      subject: 'Bienvenido a Homing',
      intro: ['Tu cuenta de Homing está lista. Elige una contraseña para poder entrar cuando quieras y ver quién ha encontrado tus cosas.'],
      action: 'Elegir tu contraseña',
      outro: ['El enlace sirve durante 7 días. Después, siempre puedes entrar con un código enviado a esta dirección.'],
    },
    'tag-activated': {
      subject: 'Tu etiqueta de Homing está activa',
      intro: ['Tu etiqueta {{tagCode}} está activa. Quien la encuentre podrá escribirte sin ver tu dirección de correo.', 'Ponle un nombre para saber en cuál de tus cosas está.'],
      action: 'Poner nombre a tu objeto',
      outro: [],
    },
    'new-message': {
      subject: 'Alguien escribió sobre tu objeto perdido',
      intro: ['Alguien que encontró tu objeto con la etiqueta {{tagCode}} te escribió. Lee el mensaje y respóndele en Homing.', 'Los mensajes de los próximos 15 minutos llegan sin otro correo.'],
      action: 'Leer el mensaje',
      outro: ['También puedes contestar respondiendo a este correo. Tu dirección de correo nunca se muestra a quien lo encontró.'],
    },
    'owner-reply': {
      subject: 'El dueño respondió a tu mensaje',
      intro: ['El dueño del objeto con la etiqueta {{tagCode}} que encontraste respondió a tu mensaje.'],
      action: 'Leer la respuesta',
      outro: ['También puedes contestar respondiendo a este correo. Tu dirección de correo nunca se muestra al dueño.', 'El botón abre tu conversación en cualquier navegador, hasta que pasen 30 días sin mensajes.'],
      footer: 'Recibes este correo porque dejaste esta dirección al escribir sobre un objeto encontrado en Homing.',
    },
    'resume-link': {
      subject: 'El enlace a tu conversación en Homing',
      intro: ['Pediste un enlace a tu conversación sobre el objeto encontrado con la etiqueta {{tagCode}}. El botón la abre en este navegador o en cualquier otro.'],
      action: 'Abrir mi conversación',
      outro: ['El enlace funciona hasta que pasen 30 días sin mensajes en la conversación. ¿No lo has pedido tú? Puedes ignorar este correo.'],
      footer: 'Recibes este correo porque alguien pidió en Homing un enlace a una conversación escrita desde esta dirección.',
    },
    'relay-acknowledgement': {
      subject: 'Tu mensaje ha llegado al dueño',
      intro: ['Gracias por escribir sobre el objeto con la etiqueta {{tagCode}}. Tu mensaje ha llegado a su dueño; su respuesta llegará a esta dirección.'],
      action: 'Abrir la conversación',
      outro: [
        'Responde a este correo para volver a escribir al dueño. Tu dirección de correo nunca se muestra al dueño. Los archivos adjuntos no se reenvían: describe mejor dónde y cuándo puedes entregar el objeto.',
        'El botón abre la conversación en cualquier navegador, hasta que pasen 30 días sin mensajes.',
      ],
      footer: 'Recibes este correo porque esta dirección escribió a la dirección de una etiqueta de Homing sobre un objeto encontrado.',
    },
    'scan-alert': {
      subject: 'Han escaneado la etiqueta de tu objeto perdido',
      intro: [
        'Alguien acaba de escanear la etiqueta {{tagCode}} de tu objeto marcado como perdido: el {{scannedAt}}, {{place}}. El lugar es una estimación aproximada a partir de la dirección de internet del dispositivo que la escaneó.',
        'Ve que lo estás buscando y puede escribirte a través de Homing. Los escaneos de los próximos 15 minutos no envían otro correo.',
      ],
      action: 'Abrir tu objeto',
      outro: ['Solo recibes estos correos mientras el objeto esté marcado como perdido. ¿Lo has recuperado? Desactiva el modo perdido en la página del objeto.'],
    },
    'account-deleted': {
      subject: 'Tu cuenta de Homing se ha eliminado',
      intro: [
        'Como pediste, hemos eliminado tu cuenta de Homing. Se han borrado tu cuenta, tus objetos (sus etiquetas quedan retiradas para siempre y ya no funcionarán), tus conversaciones y tus suscripciones a notificaciones push.',
        'Este es el último correo que te envía Homing: no recibirás nada más.',
      ],
      action: 'Volver a empezar en Homing',
      outro: ['Gracias por usar Homing. Puedes volver a empezar con una etiqueta nueva cuando quieras.'],
      footer: 'Recibes este correo porque se eliminó la cuenta de Homing de esta dirección.',
    },
    invitation: {
      subject: 'Te han invitado a compartir un objeto en Homing',
      intro: [
        'Alguien que usa Homing te ha invitado a compartir un objeto. Como copropietario te avisamos cuando alguien que lo encuentra escribe o se escanea su etiqueta, y puedes responder a quien lo encontró.',
        'La invitación es válida durante {{validDays}} días y solo se puede usar una vez.',
      ],
      action: 'Ver la invitación',
      outro: ['Si no esperabas esto, ignora este correo: no pasa nada si no aceptas.'],
      footer: 'Recibes este correo porque alguien invitó a esta dirección en Homing. Homing devuelve a casa las cosas perdidas.',
    },
    'passkey-added': {
      subject: 'Se ha añadido una llave de acceso a tu cuenta de Homing',
      intro: ['El {{occurredAt}} se añadió {{passkey}} a tu cuenta de Homing. Con ella se puede entrar en tu cuenta sin contraseña ni código.', 'Si fuiste tú, no tienes que hacer nada más.'],
      action: 'Abrir tu cuenta',
      outro: ['¿No has sido tú? Entonces puede que alguien haya entrado en tu cuenta. Entra, elimina la llave de acceso en Cuenta y cambia tu contraseña.'],
    },
    'passkey-deleted': {
      subject: 'Se ha eliminado una llave de acceso de tu cuenta de Homing',
      intro: ['El {{occurredAt}} se eliminó {{passkey}} de tu cuenta de Homing. Ya no se puede usar para entrar.', 'Si fuiste tú, no tienes que hacer nada más.'],
      action: 'Abrir tu cuenta',
      outro: ['¿No has sido tú? Entonces puede que alguien haya entrado en tu cuenta. Entra, elimina en Cuenta cualquier llave de acceso que no reconozcas y cambia tu contraseña.'],
    },
  },
  scanPlace: {
    cityAndCountry: 'cerca de {{city}}, {{country}}',
    city: 'cerca de {{city}}',
    country: 'en algún lugar de {{country}}',
    unknown: 'en un lugar que no pudimos determinar',
  },
  passkey: {
    withProvider: 'una llave de acceso de {{provider}}',
    unknown: 'una llave de acceso',
  },
  welcomeWithPassword: {
    subject: 'Bienvenido a Homing',
    intro: ['Tu cuenta de Homing está lista. Entra con tu dirección de correo y la contraseña que elegiste para ver quién ha encontrado tus cosas.'],
    action: 'Entrar',
    outro: ['¿Olvidaste tu contraseña? Siempre puedes entrar con un código enviado a esta dirección.'],
  },
  transferInvitation: {
    subject: 'Te han invitado a hacerte cargo de un objeto en Homing',
    intro: [
      'Te han invitado a hacerte cargo de un objeto en Homing: en cuanto aceptes, será tuyo y quien lo encuentre te escribirá a ti.',
      'La invitación es válida durante {{validDays}} días y solo se puede usar una vez.',
    ],
    action: 'Ver la invitación',
    outro: ['Si no esperabas esto, ignora este correo: no pasa nada si no aceptas.'],
    footer: 'Recibes este correo porque alguien invitó a esta dirección en Homing. Homing devuelve a casa las cosas perdidas.',
  },
};
