/**
 * The most common passwords of 8 characters or more (shorter ones fail the length rule anyway), from the public
 * breach-derived top lists (NCSC top 100k, SecLists 10k most common), lower-cased. Compared case-insensitively.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set(
  `
password 12345678 123456789 1234567890 password1 password123 password12 qwertyuiop iloveyou1 11111111 00000000
12341234 87654321 88888888 abcd1234 qwerty123 qwerty12 qwerty1234 1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y 1qaz2wsx
1qazxsw2 zaq12wsx zaq1zaq1 zxcvbnm1 asdfghjkl asdfasdf qwertyui qazwsxedc 123qweasd 1234qwer qwer1234 q1w2e3r4
q1w2e3r4t5 a1b2c3d4 aa123456 abc12345 abc123456 123abc123 baseball football1 football basketball superman
iloveyou princess1 princess sunshine1 sunshine trustno1 whatever letmein1 letmein123 welcome1 welcome123
welcome2 passw0rd p@ssw0rd p@ssword pa55word passpass password! password01 password2 password3 password7
password9 mypassword changeme changeme1 secret123 starwars michael1 jennifer jordan23 charlie1 computer
internet football7 liverpool chelsea1 arsenal1 manchester barcelona realmadrid master123 mustang1 shadow12
dragon12 monkey12 monkey123 hello123 hellohello 123123123 123321123 12qwaszx 1234abcd 147258369 159357456
741852963 963852741 123654789 987654321 9876543210 1111111111 11223344 12121212 13131313 22222222 33333333
44444444 55555555 66666666 77777777 99999999 12344321 123456123 1234512345 123456abc 123456qwe 123456aa
qwerty11 qwerty01 asdf1234 zxcv1234 zxcvbnma qwaszx12 1a2b3c4d killer12 soccer12 hockey12 iloveyou2
lovelove loveyou1 babygirl1 sweetheart butterfly chocolate cocacola pokemon1 naruto123 minecraft
minecraft1 fortnite1 pokemon123 spiderman batman123 superman1 starwars1 harrypotter michelle jessica1
nicole12 daniel12 anthony1 ashley12 samantha victoria alexander christian elizabeth benjamin jonathan
samsung1 iphone123 google123 facebook linkedin1 twitter1 youtube1 microsoft windows1 computer1 admin123
administrator adminadmin root1234 toor1234 test1234 testtest test12345 guest123 user1234 login123 default1
service1 server123 oracle123 postgres mysql123 access14 accessdenied master12 blink182 metallica nirvana1
rockyou1 trustme1 ihateyou fuckyou1 fuckoff1 asshole1 bitch123 whatever1 nothing1 anything something
everything 1q2w3e4r! q1w2e3r4! qwerty!@# !qaz2wsx 1qaz@wsx zaq!2wsx !@#$%^&* 1234567a a1234567 12345678a
123456789a a123456789 1234567890a qwertyu1 qwerty12345 1qaz2wsx3edc qazwsx123 qazxswedc zaq1xsw2 zaq1@wsx
summer2020 summer2021 summer2022 summer2023 summer2024 winter2020 winter2021 winter2022 winter2023 winter2024
spring2023 autumn2023 january1 february march2020 welcome2020 welcome2021 welcome2022 welcome2023 welcome2024
password2020 password2021 password2022 password2023 password2024 password2025 homing123 lostandfound
amsterdam rotterdam nederland holland1 wachtwoord wachtwoord1 welkom01 welkom123 contraseña contrasena
contrasena1 espana123 madrid123 barcelona1 teamo123 teamo1234 iloveyou! loveme123 superstar
trinity1 matrix123 hunter12 hunter123 ranger12 thunder1 freedom1 freedom123 justice1 diamond1 silver12
golden12 orange12 banana12 apple123 cheese12 pepper12 ginger12 coffee12 flower12 purple12 yellow12
`
    .split(/\s+/)
    .filter((password) => password.length >= 8),
);

export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}
