package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	base, email, pass := os.Args[1], os.Args[2], os.Args[3]
	w, _ := strconv.Atoi(os.Args[4])
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox, chromedp.WindowSize(w, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/login"), chromedp.WaitVisible(`input[name=email]`),
		chromedp.SendKeys(`input[name=email]`, email), chromedp.SendKeys(`input[name=password]`, pass),
		chromedp.Submit(`input[name=password]`), chromedp.Sleep(2*time.Second))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for i := 5; i+1 < len(os.Args); i += 2 {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+os.Args[i]), chromedp.Sleep(3*time.Second)); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		os.WriteFile(os.Args[i+1], png, 0o644)
	}
}
