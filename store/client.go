package store

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Observer is told about every DynamoDB operation the store makes: metrics
// count them in production, tests count them to prove one request per
// access pattern.
type Observer interface {
	ObserveDynamoDB(operation string, took time.Duration, capacity Capacity, err error)
}

// Capacity is what one operation consumed.
type Capacity struct{ Read, Write, Total float64 }

// ClientConfig picks the engine.
type ClientConfig struct {
	// Endpoint of DynamoDB Local (or any compatible engine); empty means AWS
	// with the default credential chain.
	Endpoint string
	Region   string
	// Health, when set, fails requests at once while the engine is known
	// down and runs its breaker over every request.
	Health *Health
}

// NewClient builds a DynamoDB client; observers see each operation once,
// whatever the retries.
func NewClient(ctx context.Context, cfg ClientConfig, observers ...Observer) (*dynamodb.Client, error) {
	region := cfg.Region
	if region == "" {
		region = "eu-north-1"
	}
	apiOptions := []func(*middleware.Stack) error{unansweredMiddleware}
	for _, o := range observers {
		apiOptions = append(apiOptions, observeMiddleware(o))
		if t, ok := o.(ThrottleObserver); ok {
			apiOptions = append(apiOptions, throttleMiddleware(t))
		}
	}
	if cfg.Health != nil {
		apiOptions = append(apiOptions, healthMiddleware(cfg.Health))
	}
	// The SDK keeps 10 idle connections per host; a busy replica has more
	// requests in flight than that and would open and close connections
	// all day.
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 512, 256
	})
	if cfg.Endpoint != "" {
		// DynamoDB Local accepts any credentials; its error responses carry no
		// CRC header, so checksum validation must be off.
		apiOptions = append(apiOptions, watchMiddleware)
		return dynamodb.New(dynamodb.Options{
			Region:                          region,
			BaseEndpoint:                    aws.String(cfg.Endpoint),
			Credentials:                     credentials.NewStaticCredentialsProvider("local", "local", ""),
			DisableValidateResponseChecksum: true,
			APIOptions:                      apiOptions,
			Retryer:                         newRetryer(),
			HTTPClient:                      httpClient,
		}), nil
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	awsCfg.APIOptions = append(awsCfg.APIOptions, apiOptions...)
	awsCfg.HTTPClient = httpClient
	awsCfg.Retryer = newRetryer
	return dynamodb.NewFromConfig(awsCfg), nil
}

// observeMiddleware asks every operation for its consumed capacity and
// reports it. It sits in the Initialize step, which runs once per call.
func observeMiddleware(o Observer) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ShopObserve",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				askCapacity(in.Parameters)
				start := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				o.ObserveDynamoDB(awsmiddleware.GetOperationName(ctx), time.Since(start), consumed(out.Result), err)
				return out, md, err
			}), middleware.After)
	}
}

var capacityTotal = reflect.ValueOf(types.ReturnConsumedCapacityTotal)

// askCapacity asks for the consumed capacity on any input that can (every
// data-plane operation's input has the field), so that no operation, today's
// or one added later, goes uncounted.
func askCapacity(params any) {
	if v := reflect.ValueOf(params); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if f := v.Elem().FieldByName("ReturnConsumedCapacity"); f.IsValid() && f.Type() == capacityTotal.Type() {
			f.Set(capacityTotal)
		}
	}
}

// consumed sums what an output reports: one ConsumedCapacity (single-item
// operations, Query) or a list of them (batches, transactions).
func consumed(result any) Capacity {
	var list []types.ConsumedCapacity
	if v := reflect.ValueOf(result); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if f := v.Elem().FieldByName("ConsumedCapacity"); f.IsValid() {
			switch cc := f.Interface().(type) {
			case *types.ConsumedCapacity:
				if cc != nil {
					list = []types.ConsumedCapacity{*cc}
				}
			case []types.ConsumedCapacity:
				list = cc
			}
		}
	}
	var c Capacity
	for _, cc := range list {
		c.Read += aws.ToFloat64(cc.ReadCapacityUnits)
		c.Write += aws.ToFloat64(cc.WriteCapacityUnits)
		c.Total += aws.ToFloat64(cc.CapacityUnits)
	}
	return c
}
