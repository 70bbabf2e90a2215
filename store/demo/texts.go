package demo

import "shop/store"

// productTexts are the demo products' names and descriptions in Korean and
// Indonesian, as staff would give them. Place names and record titles stay
// as they are spelt in Sweden.
var productTexts = map[string]map[string]store.ProductText{
	"bk-fjord": {
		"ko": text("피오르 이야기", "서해안을 배경으로 한 열두 편의 단편, 한 해의 달마다 한 편씩."),
		"id": text("Kisah-Kisah Fjord", "Dua belas cerita pendek berlatar pesisir barat, satu untuk setiap bulan dalam setahun."),
	},
	"bk-cinnamon": {
		"ko": text("시나몬 번 책", "카넬불레부터 셈라까지, 피카를 위한 마흔 가지 베이킹. 분량은 그램 단위."),
		"id": text("Buku Roti Kayu Manis", "Empat puluh resep kue untuk fika, dari kanelbullar hingga semlor, dengan takaran dalam gram."),
	},
	"bk-allemans": {
		"ko": text("자연을 누릴 권리", "스웨덴의 알레만스레텐 안내서: 어디를 걷고, 야영하고, 채집해도 되는지."),
		"id": text("Hak Menjelajah", "Panduan lapangan allemansrätten Swedia: di mana Anda boleh berjalan, berkemah, dan memetik."),
	},
	"bk-lighthouse": {
		"ko": text("마지막 등대지기", "마르스트란드 북쪽 암초섬에서 보낸 어느 겨울에 관한 소설."),
		"id": text("Penjaga Mercusuar Terakhir", "Novel tentang satu musim dingin di pulau karang di utara Marstrand."),
	},
	"bk-foraging": {
		"ko": text("북유럽 채집 안내", "북유럽 숲의 버섯, 베리, 허브를 선명한 사진과 함께."),
		"id": text("Meramu di Utara", "Jamur, buah beri, dan herba hutan Nordik, dengan foto yang jelas."),
	},
	"bk-knots": {
		"ko": text("선원을 위한 매듭", "마흔 가지 매듭을 단계별로. 갑판 위에 평평하게 펼쳐지는 스프링 제본."),
		"id": text("Simpul untuk Pelaut", "Empat puluh simpul, langkah demi langkah, dengan jilid spiral yang terbuka rata di geladak."),
	},
	"bk-fika": {
		"ko": text("집에서 즐기는 피카", "스웨덴의 커피 타임, 설명과 베이킹까지."),
		"id": text("Fika di Rumah", "Rehat kopi ala Swedia, dijelaskan dan dipanggang."),
	},
	"cf-gbg-dark": {
		"ko": text("예테보리 다크 로스트 500 g", "코코아와 구운 견과류 향의 묵직한 맛. 홀빈."),
		"id": text("Göteborg Dark Roast 500 g", "Kaya rasa, dengan sentuhan kakao dan kacang panggang. Biji utuh."),
	},
	"cf-light": {
		"ko": text("아키펠라고 라이트 로스트 500 g", "밝고 꽃향기가 나며, 필터 추출용으로 볶았습니다. 홀빈."),
		"id": text("Archipelago Light Roast 500 g", "Cerah dan beraroma bunga, disangrai untuk seduh saring. Biji utuh."),
	},
	"cf-espresso": {
		"ko": text("하버 에스프레소 1 kg", "에스프레소 머신용 블렌드, 우유와 부드럽게 어울립니다."),
		"id": text("Harbour Espresso 1 kg", "Racikan untuk mesin espresso, lembut dengan susu."),
	},
	"cf-decaf": {
		"ko": text("미드나잇 디카페인 250 g", "스위스 워터 방식으로 카페인을 뺀 콜롬비아 원두, 늦은 피카를 위해."),
		"id": text("Midnight Decaf 250 g", "Kopi Kolombia tanpa kafein dengan metode Swiss Water, untuk fika larut malam."),
	},
	"cf-grinder": {
		"ko": text("핸드 그라인더", "강철 버, 40단계 분쇄 조절, 여행용 파우치에 접어 넣을 수 있습니다."),
		"id": text("Penggiling Tangan", "Mata giling baja, 40 tingkat kehalusan, terlipat masuk ke kantong perjalanan."),
	},
	"cf-pourover": {
		"ko": text("푸어오버 드리퍼", "02 사이즈 필터용 세라믹 드리퍼."),
		"id": text("Dripper Pour-over", "Dripper keramik untuk filter ukuran 02."),
	},
	"cf-filters": {
		"ko": text("종이 필터 02 (100매)", "표백하지 않은 종이 필터."),
		"id": text("Filter Kertas 02 (100)", "Filter kertas tanpa pemutih."),
	},
	"kt-mug": {
		"ko": text("석기 머그", "회가나스에서 손으로 유약을 입힌 300 ml 머그."),
		"id": text("Mug Gerabah", "Diglasir tangan di Höganäs, 300 ml."),
	},
	"kt-board": {
		"ko": text("자작나무 도마", "스몰란드산 통자작나무, 오일 마감."),
		"id": text("Talenan Kayu Birch", "Kayu birch utuh dari Småland, diberi minyak."),
	},
	"kt-kettle": {
		"ko": text("구스넥 주전자", "1리터, 뚜껑에 온도계가 달려 있습니다."),
		"id": text("Ketel Leher Angsa", "1 liter, dengan termometer di tutupnya."),
	},
	"kt-tin": {
		"ko": text("커피 틴", "원두 500 g을 담는 밀폐 틴."),
		"id": text("Kaleng Kopi", "Kaleng kedap udara untuk 500 g biji kopi."),
	},
	"kt-towel": {
		"ko": text("리넨 행주", "보로스에서 짠 리넨, 회색 줄무늬."),
		"id": text("Serbet Linen", "Linen tenun dari Borås, bergaris abu-abu."),
	},
	"kt-thermos": {
		"ko": text("스틸 보온병 0.75 l", "커피를 열두 시간 동안 뜨겁게 지켜 줍니다."),
		"id": text("Termos Baja 0,75 l", "Menjaga kopi tetap panas selama dua belas jam."),
	},
	"kt-butter": {
		"ko": text("버터 나이프 세트", "향나무로 만든 버터 나이프 네 개."),
		"id": text("Set Pisau Mentega", "Empat pisau mentega dari kayu juniper."),
	},
	"mu-fjall": {
		"ko": text("Fjäll – 키루나 라이브 (LP)", "한밤의 태양 아래 하룻밤에 녹음한 포크 트리오."),
		"id": text("Fjäll – Live in Kiruna (LP)", "Trio folk yang direkam dalam satu malam di bawah matahari tengah malam."),
	},
	"mu-harbour": {
		"ko": text("하버 라이츠 (CD)", "예테보리 항구 축제의 아코디언과 현악."),
		"id": text("Harbour Lights (CD)", "Akordeon dan gesek dari festival pelabuhan Göteborg."),
	},
	"mu-nyckel": {
		"ko": text("뉘켈하르파 세션 (LP)", "건반 피들로 연주하는 전통 곡."),
		"id": text("Nyckelharpa Sessions (LP)", "Lagu-lagu tradisional dengan biola berkunci."),
	},
	"mu-winter": {
		"ko": text("겨울 노래 (CD)", "웁살라의 합창단이 가장 어두운 달들을 노래합니다."),
		"id": text("Lagu Musim Dingin (CD)", "Paduan suara dari Uppsala menyanyikan bulan-bulan paling gelap."),
	},
	"mu-jazz": {
		"ko": text("스톡홀름 재즈 나이트 (LP)", "쇠데르말름의 작은 클럽에서 녹음한 더블 앨범."),
		"id": text("Stockholm Jazz Nights (LP)", "Album ganda yang direkam di klub kecil di Södermalm."),
	},
	"mu-sea": {
		"ko": text("바다의 노래 (CD)", "서해안의 뱃노래와 발라드."),
		"id": text("Lagu-Lagu Laut (CD)", "Lagu pelaut dan balada dari pesisir barat."),
	},
	"od-kasa": {
		"ko": text("나무 코사 컵", "자작나무를 깎아 만든, 산악 지방의 전통 컵."),
		"id": text("Cangkir Kåsa Kayu", "Cangkir birch ukir, cangkir minum tradisional dataran tinggi."),
	},
	"od-knife": {
		"ko": text("모라 부시크래프트 나이프", "탄소강 날, 칼집 포함."),
		"id": text("Pisau Bushcraft Mora", "Bilah baja karbon, termasuk sarungnya."),
	},
	"od-pad": {
		"ko": text("방석 패드", "차가운 바위 위에서도 보송하게 앉을 수 있는 폼 패드."),
		"id": text("Alas Duduk", "Alas busa yang menjaga Anda tetap kering di atas batu dingin."),
	},
	"od-stove": {
		"ko": text("알코올 스토브", "바람막이가 달린 황동 알코올 버너."),
		"id": text("Kompor Spiritus", "Pembakar spiritus dari kuningan dengan pelindung angin."),
	},
	"od-lantern": {
		"ko": text("캔들 랜턴", "긴 가을 저녁을 위한 접이식 랜턴."),
		"id": text("Lentera Lilin", "Lentera lipat untuk malam musim gugur yang panjang."),
	},
	"od-hammock": {
		"ko": text("숲 해먹", "낙하산 나일론, 스트랩 포함, 600 g."),
		"id": text("Hammock Hutan", "Nilon parasut, termasuk tali, 600 g."),
	},
	"od-socks": {
		"ko": text("울 등산 양말", "옘틀란드산 메리노 양말 두 켤레."),
		"id": text("Kaus Kaki Wol Mendaki", "Kaus kaki merino dari Jämtland, dua pasang."),
	},
}

func text(name, description string) store.ProductText {
	return store.ProductText{Name: name, Description: description}
}

// namesOf is the product's names in the other languages, as a line bought
// in the demo's history keeps them.
func namesOf(id string) store.ProductNames { return store.Product{Texts: productTexts[id]}.Names() }
