package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
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
}

// NewClient builds a DynamoDB client; observers see each operation once,
// whatever the retries.
func NewClient(ctx context.Context, cfg ClientConfig, observers ...Observer) (*dynamodb.Client, error) {
	region := cfg.Region
	if region == "" {
		region = "eu-north-1"
	}
	apiOptions := []func(*middleware.Stack) error{}
	for _, o := range observers {
		apiOptions = append(apiOptions, observeMiddleware(o))
	}
	if cfg.Endpoint != "" {
		// DynamoDB Local accepts any credentials; its error responses carry no
		// CRC header, so checksum validation must be off.
		return dynamodb.New(dynamodb.Options{
			Region:                          region,
			BaseEndpoint:                    aws.String(cfg.Endpoint),
			Credentials:                     credentials.NewStaticCredentialsProvider("local", "local", ""),
			DisableValidateResponseChecksum: true,
			APIOptions:                      apiOptions,
			RetryMaxAttempts:                5,
		}), nil
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	awsCfg.APIOptions = append(awsCfg.APIOptions, apiOptions...)
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

func askCapacity(params any) {
	total := types.ReturnConsumedCapacityTotal
	switch p := params.(type) {
	case *dynamodb.GetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.ScanInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.TransactGetItemsInput:
		p.ReturnConsumedCapacity = total
	}
}

func consumed(result any) Capacity {
	var list []types.ConsumedCapacity
	switch r := result.(type) {
	case *dynamodb.GetItemOutput:
		list = one(r.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		list = one(r.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		list = one(r.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		list = one(r.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		list = one(r.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		list = one(r.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		list = r.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		list = r.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		list = r.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		list = r.ConsumedCapacity
	}
	var c Capacity
	for _, cc := range list {
		c.Read += aws.ToFloat64(cc.ReadCapacityUnits)
		c.Write += aws.ToFloat64(cc.WriteCapacityUnits)
		c.Total += aws.ToFloat64(cc.CapacityUnits)
	}
	return c
}

func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}
